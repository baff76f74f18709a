"""Settings of the bare broadcast floor (bench/bare_asgi.py): only Channels and
the product's own channel layer configuration, nothing else of the site."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "bench-bare-broadcast-only")

from config.settings import CHANNEL_LAYERS  # noqa: E402,F401  the same layer, same tuning

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = ["channels"]
DATABASES = {}
USE_TZ = True
LOGGING_CONFIG = None
