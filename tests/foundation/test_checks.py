"""Django's own checks: the deploy checklist passes and no migration is missing."""

import secrets
from functools import partial

from tests import servers

# Only the settings each test gives: none of ours (DJANGO_*, DATABASE_URL, REDIS_URL).
manage = partial(servers.manage, clean=True)


def test_deploy_checklist_passes_in_production_configuration():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env={
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "example.com",
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_model_change_is_missing_a_migration():
    result = manage("makemigrations", "--check", "--dry-run", env={})
    assert result.returncode == 0, result.stdout + result.stderr
