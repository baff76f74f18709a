"""Khelaghor's one settings module.

Everything that differs between a laptop, CI and production comes from the
environment; nothing secret lives in the repository. With no variables set the
site runs on SQLite, an in-memory channel layer and in-process timers, which is
enough for one `runserver`. Production sets DJANGO_SECRET_KEY, DJANGO_DEBUG=0,
DJANGO_ALLOWED_HOSTS, DATABASE_URL (PostgreSQL) and REDIS_URL, because several
daphne processes must share the database, the channel layer and the turn timers.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {value!r}")


def _env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# --- Core -------------------------------------------------------------------

_SECRET_FROM_ENV = os.environ.get("DJANGO_SECRET_KEY", "")
# Debug defaults to on only when no secret is configured, i.e. on a developer's machine.
DEBUG = _env_bool("DJANGO_DEBUG", default=not _SECRET_FROM_ENV)

if _SECRET_FROM_ENV:
    SECRET_KEY = _SECRET_FROM_ENV
elif DEBUG:
    # Only ever used in development; a production process refuses to start without a key.
    SECRET_KEY = "django-insecure-khelaghor-development-only-key-do-not-use-in-production"
else:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")

ALLOWED_HOSTS = _env_list(
    "DJANGO_ALLOWED_HOSTS",
    default=["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else [],
)

INSTALLED_APPS = [
    # daphne first: its runserver replaces Django's so `manage.py runserver` speaks ASGI.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rooms",
    "accounts_optional",
]

MIDDLEWARE = [
    # Pages and JSON compressed by Django itself, so they are small however the
    # site is deployed (nginx passes an already compressed response on). BREACH:
    # Django pads each gzip body by a random length (Heal The Breach) and masks
    # the CSRF token afresh in every response; no page shows another secret.
    "django.middleware.gzip.GZipMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    # Before anything reads the Host: probes on the loopback carry no site
    # name (config/views.py). After the two above, which add their headers.
    "config.views.HealthzBeforeHostCheck",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Bengali unless the visitor or the browser's first language asks for English.
    "config.language.BengaliFirstLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # {{ n|local_digits }} on every page: Bengali digits on Bengali pages;
            # {{ name|seat_name:kind }}: computer players named in the page's language;
            # {% js_catalogue_src %}: the JavaScript catalogue, static or /jsi18n/.
            "builtins": ["config.digits", "rooms.bot_names", "config.catalogue"],
        },
    },
]

# --- Database ---------------------------------------------------------------

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Without the pool below (SQLite, or KHELAGHOR_DB_POOL_SIZE=0): persistent
        # connections, because a new PostgreSQL connection per room command cost
        # 3.5x the throughput in bench/bench_load.py (docs/performance.md).
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
# Threads per process for room commands on PostgreSQL. Few is faster: a
# command is mostly waits for the database, and each wake-up must win the GIL
# from the event loop and the other threads; at 500 tables 2 threads gave a
# p99 of 59 ms where 12 gave 290 ms (docs/performance.md). Each command takes
# a connection from the pool below for its duration.
KHELAGHOR_DB_THREADS = int(os.environ.get("KHELAGHOR_DB_THREADS", "2"))
# PostgreSQL connections one process may hold at once (psycopg's pool, below):
# processes x KHELAGHOR_DB_POOL_SIZE must stay under PostgreSQL's
# max_connections (docs/deploy.md, "Database connections").
KHELAGHOR_DB_POOL_SIZE = int(os.environ.get("KHELAGHOR_DB_POOL_SIZE", "10"))
# Seconds a request waits for a free pooled connection before it fails.
KHELAGHOR_DB_POOL_TIMEOUT = float(os.environ.get("KHELAGHOR_DB_POOL_TIMEOUT", "10"))
# How long the pool keeps trying to reopen one lost connection before it gives
# that try up (psycopg's ``reconnect_timeout``, 5 minutes by default). Its tries
# back off 1, 2, 4, 8 ... s apart, so after a long PostgreSQL outage the site
# stayed down for up to as long again once the database was back. Given up
# sooner, a try is started afresh by the next command that waits: every try is
# at most about 2 s from the next.
KHELAGHOR_DB_RECONNECT_SECONDS = float(os.environ.get("KHELAGHOR_DB_RECONNECT_SECONDS", "4"))

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and KHELAGHOR_DB_POOL_SIZE:
    # A bounded pool, not persistent connections. Under ASGI every HTTP request
    # runs its ORM work in a thread of its own that ends with the request, and
    # a persistent connection stays behind with it: 128 concurrent requests
    # opened ~95 connections and PostgreSQL refused the rest. Pooled connections
    # go back to the pool when the request (or room command) ends, whichever
    # thread ran it, and a request that finds the pool empty waits for one.
    if KHELAGHOR_DB_POOL_SIZE < KHELAGHOR_DB_THREADS + 2:
        raise ImproperlyConfigured(
            "KHELAGHOR_DB_POOL_SIZE must leave room for requests and the turn timers: "
            f"at least KHELAGHOR_DB_THREADS + 2 = {KHELAGHOR_DB_THREADS + 2}"
        )
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django's pool requires it
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        # Kept open: one per command thread, the timers' thread and a request.
        "min_size": KHELAGHOR_DB_THREADS + 2,
        "max_size": KHELAGHOR_DB_POOL_SIZE,
        "timeout": KHELAGHOR_DB_POOL_TIMEOUT,
        "reconnect_timeout": KHELAGHOR_DB_RECONNECT_SECONDS,
    }
    # CONN_HEALTH_CHECKS (on) makes the pool check a connection when it hands
    # it out: one empty query, the round trip the health check already cost
    # each command with persistent connections.
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Channels runs database work in threads; without a busy timeout concurrent writers
    # fail at once with "database is locked" instead of waiting their turn.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    # Every transaction takes SQLite's write lock at BEGIN, so a room's commands
    # run one at a time (PostgreSQL uses the room's row lock instead).
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer, timers, cache -------------------------------------

REDIS_URL = os.environ.get("REDIS_URL", "")

# The start of every name this site keeps in Redis: pub/sub channels, the turn
# timers' keys and the cache's (rate-limit counters included). Two sites (or a
# site and a test run) on one Redis, even on one database number, stay apart when
# their prefixes differ; pub/sub ignores database numbers anyway.
# KHELAGHOR_CHANNEL_PREFIX is its older name, from when it named only the channels.
KHELAGHOR_REDIS_PREFIX = (os.environ.get("KHELAGHOR_REDIS_PREFIX")
                          or os.environ.get("KHELAGHOR_CHANNEL_PREFIX") or "khelaghor")

# Which Redis layer: "pubsub" (default) publishes a group message once and costs
# about a fifth of the CPU per delivery of "core" in bench/bench_channel_layers.py;
# it can lose messages across a Redis reconnect, which clients survive because
# every update carries the room version and a gap makes them resync.
KHELAGHOR_CHANNEL_LAYER = os.environ.get("KHELAGHOR_CHANNEL_LAYER", "pubsub")

if REDIS_URL and KHELAGHOR_CHANNEL_LAYER == "pubsub":
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                # RESP2: redis-py 8 speaks RESP3 by default, and its RESP3 reader
                # writes out the text of every pub/sub message for a debug log
                # line, debug logging on or not: 58 µs of CPU per 12 KB room
                # update received, against 27 µs in RESP2 (docs/performance.md,
                # round 14). Each process receives every update of its rooms.
                "hosts": [{"address": REDIS_URL, "protocol": 2}],
                "prefix": KHELAGHOR_REDIS_PREFIX,
            },
        }
    }
elif REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [REDIS_URL],
                "prefix": KHELAGHOR_REDIS_PREFIX,
                # Messages waiting per channel before ChannelFull; the default 100 is
                # too small for a busy room broadcasting every move to every seat.
                "capacity": 1500,
                # Seconds an undelivered message lives before it is dropped.
                "expiry": 60,
                # Seconds a group membership lives without being refreshed. A room
                # socket stays open for a whole evening, so keep it at a day.
                "group_expiry": 86400,
            },
        }
    }

if REDIS_URL:
    KHELAGHOR_TIMER_BACKEND = "rooms.timers.RedisTimers"
    KHELAGHOR_REDIS_URL = REDIS_URL
    CACHES = {
        "default": {
            "BACKEND": "config.cache.RedisCache",  # Django's, its clients kept
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": KHELAGHOR_REDIS_PREFIX,
            # A Redis that cannot be reached fails a request's limit check in a
            # second, not the system's TCP timeout; the check then counts in
            # the process (config.ratelimit.Counters).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    # One process only: fine for `make run` and the unit tests.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    KHELAGHOR_TIMER_BACKEND = "rooms.timers.InProcessTimers"
    KHELAGHOR_REDIS_URL = ""
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Sessions and auth --------------------------------------------------------

# Seats are keyed by session key, so sessions must live on the server: the
# signed-cookie engine has no key. A year, so a guest who comes back keeps a seat.
SESSION_ENGINE = "config.sessions"  # Django's database sessions, read leaner
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Optional accounts (accounts_optional): Django's auth views at /accounts/.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "profile"
LOGOUT_REDIRECT_URL = "home"

# Password-reset mail. Without EMAIL_HOST it is printed to the console (enough
# for development and for a site whose players rarely give an email).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Khelaghor <noreply@localhost>")

# --- Internationalisation -------------------------------------------------------

LANGUAGE_CODE = "bn"
LANGUAGES = [("bn", "বাংলা"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Asia/Dhaka"
USE_TZ = True

# --- Static files ---------------------------------------------------------------

STATIC_URL = "static/"
# Where collectstatic writes (and nginx serves /static/ from): the checkout's
# staticfiles/ unless the operator keeps static files elsewhere.
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # The manifest storage needs `collectstatic` first, so only outside DEBUG.
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        ),
    },
}

# --- Security (production) --------------------------------------------------------

if not DEBUG:
    # TLS ends at nginx, which sets X-Forwarded-Proto; trust it only from there.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = _env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    # Load balancers and systemd probes call /healthz on the loopback over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    X_FRAME_OPTIONS = "DENY"

# Everything comes from this site and no page has inline script or style
# (config/security.py; tests/browser/test_csp.py loads every page in Chromium
# and fails on any violation). 'self' covers the room socket (ws/wss) too.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

CSRF_TRUSTED_ORIGINS = _env_list(
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    default=[
        f"https://{host}"
        for host in ALLOWED_HOSTS
        if host and not host.startswith(".") and host != "*" and host != "testserver"
    ],
)

# The guest's language choice is remembered for a year, like the seat.
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365

# --- Logging ------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    # An outage's repeated records: the first is kept, then a line a minute
    # (config.logfilters). One filter per logger, each with its own count.
    "filters": {
        "redis_outage": {"()": "config.logfilters.OutageRepeats"},
        "pool_outage": {"()": "config.logfilters.DatabaseOutageRepeats"},
        "clocks_outage": {"()": "config.logfilters.DatabaseOutageRepeats"},
        # Our own notes, one per update, socket or deadline in an outage.
        "publish_redis_away": {"()": "config.logfilters.OutageRepeats"},
        "sockets_redis_away": {"()": "config.logfilters.OutageRepeats"},
        "sockets_database_away": {"()": "config.logfilters.DatabaseOutageRepeats"},
        "play_redis_away": {"()": "config.logfilters.OutageRepeats"},
        "healthz_redis_away": {"()": "config.logfilters.OutageRepeats"},
        "healthz_database_away": {"()": "config.logfilters.DatabaseOutageRepeats"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "daphne": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        # A logger's filters see only its own records: each named as its module.
        "channels_redis.pubsub": {"filters": ["redis_outage"]},
        "psycopg.pool": {"filters": ["pool_outage"]},
        "rooms.ticker": {"filters": ["clocks_outage"]},
        "rooms.publish": {"filters": ["publish_redis_away"]},
        "rooms.consumers": {"filters": ["sockets_redis_away", "sockets_database_away"]},
        "rooms.services.play": {"filters": ["play_redis_away"]},
        "config.views": {"filters": ["healthz_redis_away", "healthz_database_away"]},
    },
}

# The request header a trusted proxy sets to the client's address (nginx:
# X-Real-IP -> "HTTP_X_REAL_IP"); rate limits count per address with it.
KHELAGHOR_CLIENT_IP_HEADER = os.environ.get("KHELAGHOR_CLIENT_IP_HEADER", "")

# --- Game tables ------------------------------------------------------------------
# Seconds a computer player waits before acting (0: at once, as tests want).
KHELAGHOR_BOT_DELAY = float(os.environ.get("KHELAGHOR_BOT_DELAY", "1.0"))
# Seconds per decision at a normal table (party tables get twice as long). The
# rules say 15; tests and benchmarks set less to see many timeouts quickly.
KHELAGHOR_TURN_SECONDS = float(os.environ.get("KHELAGHOR_TURN_SECONDS", "15"))
# Seconds a quick-play table waits for people before computers fill it and it
# starts (browser tests that seat a second person set it long: no race).
KHELAGHOR_QUICK_PLAY_WAIT = float(os.environ.get("KHELAGHOR_QUICK_PLAY_WAIT", "10"))
# When no server process has run the turn clocks for longer than this many
# seconds (all of them down, or the database away), the clocks pause for that
# long: deadlines, quick play's countdowns and the away rule all move on by the
# gap (rooms.services.clocks_beat). A rolling restart never pauses them; 0 never.
KHELAGHOR_CLOCKS_PAUSE_AFTER = float(os.environ.get("KHELAGHOR_CLOCKS_PAUSE_AFTER", "10"))
# While Redis is away a process fires at once the deadlines of the rooms it has
# sockets for, and those of other rooms this many seconds late, in case no
# process has sockets for them (rooms.ticker).
KHELAGHOR_OUTAGE_ELSEWHERE_GRACE = float(os.environ.get("KHELAGHOR_OUTAGE_ELSEWHERE_GRACE", "1.5"))

# Games beyond games/registry.py's list, as module names that declare one
# (``DECLARATION``), comma-separated; registered when the rooms app starts.
KHELAGHOR_EXTRA_GAMES = [
    name.strip() for name in os.environ.get("KHELAGHOR_EXTRA_GAMES", "").split(",") if name.strip()
]
