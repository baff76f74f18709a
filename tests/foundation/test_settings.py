"""Settings choose embedded defaults with no environment and real services when told.

Each case runs in a fresh interpreter because settings are read once per process.
"""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import redis

REPO_ROOT = Path(__file__).resolve().parents[2]

PRINT_CHOICES = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps({
    "db": settings.DATABASES["default"]["ENGINE"],
    "db_options": settings.DATABASES["default"].get("OPTIONS", {}),
    "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "layer_config": settings.CHANNEL_LAYERS["default"].get("CONFIG", {}),
    "timers": settings.KHELAGHOR_TIMER_BACKEND,
    "redis": settings.KHELAGHOR_REDIS_URL,
    "cache": settings.CACHES["default"]["BACKEND"],
    "debug": settings.DEBUG,
    "session_engine": settings.SESSION_ENGINE,
    "session_age": settings.SESSION_COOKIE_AGE,
    "hosts": settings.ALLOWED_HOSTS,
    "csrf_origins": settings.CSRF_TRUSTED_ORIGINS,
    "language": settings.LANGUAGE_CODE,
    "first_app": settings.INSTALLED_APPS[0],
    "static_root": str(settings.STATIC_ROOT),
}))
"""


def settings_with(env: dict[str, str]) -> dict:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DJANGO_") and k not in ("DATABASE_URL", "REDIS_URL")
    }
    result = subprocess.run(
        [sys.executable, "-c", PRINT_CHOICES],
        cwd=REPO_ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_nothing_set_means_sqlite_in_memory_layer_and_in_process_timers():
    chosen = settings_with({})
    assert chosen["db"] == "django.db.backends.sqlite3"
    assert chosen["db_options"]["timeout"] >= 20
    assert chosen["layer"] == "channels.layers.InMemoryChannelLayer"
    assert chosen["timers"] == "rooms.timers.InProcessTimers"
    assert chosen["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert chosen["debug"] is True
    assert "localhost" in chosen["hosts"] and "127.0.0.1" in chosen["hosts"]


def test_database_and_redis_urls_switch_to_postgres_and_redis():
    chosen = settings_with(
        {
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/15",
        }
    )
    assert chosen["db"] == "django.db.backends.postgresql"
    assert chosen["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert chosen["layer_config"]["hosts"] == [
        {"address": "redis://127.0.0.1:6379/15", "protocol": 2}
    ]
    assert chosen["timers"] == "rooms.timers.RedisTimers"
    assert chosen["redis"] == "redis://127.0.0.1:6379/15"
    assert chosen["cache"] == "config.cache.RedisCache"
    # psycopg's pool would back off to minutes between tries to reconnect
    # after an outage; each try is given up within a few seconds and started
    # afresh by the next command that waits (docs/deploy.md).
    pool = chosen["db_options"]["pool"]
    assert pool["reconnect_timeout"] == 4
    assert pool["reconnect_timeout"] < pool["timeout"]


def test_the_core_redis_layer_is_one_setting_away_with_the_limits_that_bite_raised():
    chosen = settings_with(
        {"REDIS_URL": "redis://127.0.0.1:6379/15", "KHELAGHOR_CHANNEL_LAYER": "core"}
    )
    assert chosen["layer"] == "channels_redis.core.RedisChannelLayer"
    assert chosen["layer_config"]["capacity"] >= 1000
    assert chosen["layer_config"]["group_expiry"] == 86400


def test_sessions_live_on_the_server_for_a_year_because_seats_are_keyed_by_them():
    chosen = settings_with({})
    assert chosen["session_engine"] != "django.contrib.sessions.backends.signed_cookies"
    assert chosen["session_age"] >= 365 * 24 * 3600


def test_bengali_is_the_default_language_and_daphne_owns_runserver():
    chosen = settings_with({})
    assert chosen["language"] == "bn"
    assert chosen["first_app"] == "daphne"


def test_a_secret_key_turns_debug_off_and_hosts_feed_csrf_origins():
    chosen = settings_with(
        {"DJANGO_SECRET_KEY": "x" * 60, "DJANGO_ALLOWED_HOSTS": "khelaghor.example, www.x.example"}
    )
    assert chosen["debug"] is False
    assert chosen["hosts"] == ["khelaghor.example", "www.x.example"]
    assert chosen["csrf_origins"] == ["https://khelaghor.example", "https://www.x.example"]


def test_production_without_a_secret_key_refuses_to_start():
    base = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    result = subprocess.run(
        [sys.executable, "-c", PRINT_CHOICES],
        cwd=REPO_ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_behind_a_proxy_the_players_address_comes_from_the_proxys_header(settings, rf):
    from config.clients import client_address, scope_address

    request = rf.get("/", HTTP_X_REAL_IP="203.0.113.9", REMOTE_ADDR="127.0.0.1")
    scope = {"headers": [(b"x-real-ip", b"203.0.113.9")], "client": ("127.0.0.1", 5000)}
    settings.KHELAGHOR_CLIENT_IP_HEADER = ""
    assert client_address(request) == "127.0.0.1" and scope_address(scope) == "127.0.0.1"
    settings.KHELAGHOR_CLIENT_IP_HEADER = "HTTP_X_REAL_IP"
    assert client_address(request) == "203.0.113.9" and scope_address(scope) == "203.0.113.9"


def test_static_files_go_to_the_checkout_unless_the_operator_names_a_place():
    assert settings_with({})["static_root"] == str(REPO_ROOT / "staticfiles")
    chosen = settings_with({"DJANGO_STATIC_ROOT": "/srv/khelaghor-static"})
    assert chosen["static_root"] == "/srv/khelaghor-static"


SITE_WRITES_TO_REDIS = """
import asyncio, json, django
django.setup()
from django.core.cache import cache
from channels.layers import get_channel_layer
from rooms.timers import get_timer_backend
timers = get_timer_backend()
timers.schedule("g:1", 1, 4102444800.0)            # a turn deadline
timers.claim_action(1, "session", 3, 4102444800.0)  # an action's claim
cache.set("code-miss:s:1", 1, 60)                   # a rate-limit counter
layer = get_channel_layer()
print(json.dumps({"channel": asyncio.run(layer.new_channel())}))
"""


def test_one_prefix_keeps_every_redis_name_of_a_site_apart(redis_service):
    # Two sites on one Redis database stay apart by their prefix: the timers,
    # the cache (rate-limit counters) and the channels all start with it.
    prefix = f"site{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(redis_service)
    before = set(client.keys("*"))
    result = subprocess.run(
        [sys.executable, "-c", SITE_WRITES_TO_REDIS], cwd=REPO_ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
             "REDIS_URL": redis_service, "KHELAGHOR_REDIS_PREFIX": prefix},
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    written = set(client.keys("*")) - before
    try:
        assert len(written) >= 3  # the deadline, the claim, the counter
        assert all(key.decode().startswith(prefix) for key in written), written
        assert json.loads(result.stdout)["channel"].startswith(prefix)
    finally:
        if written:
            client.delete(*written)
