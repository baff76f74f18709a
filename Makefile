# Khelaghor's everyday commands. `make run` to play locally, `make test` before pushing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench serve messages compilemessages clean

# Reinstall only when a requirements file is newer than the last install.
$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

$(VENV): $(STAMP)

# daphne is first in INSTALLED_APPS, so this runserver is daphne's (ASGI, WebSockets).
run: $(STAMP) compilemessages
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver 127.0.0.1:8000

# pytest's exit code 5 ("no tests collected") is a failure too: make stops on any non-zero.
test: $(STAMP) lint
	$(PY) scripts/compile_messages.py --check
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	@if [ -f bench/run_all.py ]; then $(PY) bench/run_all.py; else echo "no bench/run_all.py"; fi

# Production: static files, schema, then one daphne on $PORT (systemd runs several).
serve: $(STAMP) compilemessages
	$(PY) manage.py collectstatic --noinput
	$(PY) manage.py migrate --noinput
	$(VENV)/bin/daphne -b 127.0.0.1 -p $${PORT:-8000} config.asgi:application

# Needs GNU gettext (xgettext/msgmerge); only translators run this.
messages: $(STAMP)
	$(PY) manage.py makemessages -l bn -l en --no-location \
		--ignore=.venv --ignore=staticfiles --ignore=games --ignore=tests
	$(PY) manage.py makemessages -d djangojs -l bn -l en --no-location \
		--ignore=.venv --ignore=staticfiles --ignore=games --ignore=tests

# Pure Python, so it works on a machine without gettext; writes only stale .mo files.
compilemessages: $(STAMP)
	$(PY) scripts/compile_messages.py

clean:
	rm -rf staticfiles .pytest_cache .ruff_cache
