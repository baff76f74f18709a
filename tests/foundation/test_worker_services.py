"""Each pytest-xdist worker derives services of its own from the configured ones."""

import pytest

from tests import services


def test_each_worker_gets_its_own_postgres_database_on_the_same_server():
    base = "postgres://postgres@127.0.0.1:5432/test"
    assert services.postgres_url_for_worker(base, "gw0") == (
        "postgres://postgres@127.0.0.1:5432/test_gw0"
    )
    assert services.postgres_url_for_worker(base, "gw1") == (
        "postgres://postgres@127.0.0.1:5432/test_gw1"
    )


def test_redis_databases_count_down_from_the_base_or_come_from_the_list():
    base = "redis://127.0.0.1:6379/15"
    assert services.redis_url_for_worker(base, "gw0") == "redis://127.0.0.1:6379/15"
    assert services.redis_url_for_worker(base, "gw1") == "redis://127.0.0.1:6379/14"
    assert services.redis_url_for_worker(base, "gw1", "8, 9") == "redis://127.0.0.1:6379/9"


@pytest.mark.parametrize(
    "url, worker, spare, says",
    [
        ("redis://127.0.0.1:6379/0", "gw1", "", "below 0"),
        ("redis://127.0.0.1:6379/15", "gw2", "8,9", "no database for worker gw2"),
        ("redis://127.0.0.1:6379/15", "main", "", "not a pytest-xdist worker id"),
    ],
)
def test_a_worker_without_a_database_of_its_own_is_a_clear_error(url, worker, spare, says):
    with pytest.raises(ValueError, match=says):
        services.redis_url_for_worker(url, worker, spare)
