# Khelaghor's everyday commands: `make run` to play locally, `make check` after every
# edit, `make test` before pushing (what CI runs).
PYTHON ?= python3
HOST ?= 127.0.0.1
PORT ?= 8000
# pytest-xdist processes for `make check` and `make test` (this machine kind has 2 cores).
WORKERS ?= 2
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# bash for pipefail: a failed pip install must fail make even though its output is filtered.
SHELL := /bin/bash

.PHONY: run admin check test lint bench serve messages compilemessages clean

# Reinstall only when a requirements file is newer than the last install. pip's own
# output is cut to one line per package, so a first run shows where it is.
$(STAMP): requirements.txt requirements-dev.txt
	@if ! test -x $(PY); then echo "make: creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); fi
	@echo "make: updating pip in $(VENV)"
	@$(PY) -m pip install --quiet --upgrade pip
	@echo "make: installing requirements-dev.txt into $(VENV) (about two minutes the first time)"
	@set -o pipefail; $(PY) -m pip install --progress-bar off -r requirements-dev.txt \
		| awk '/^Collecting / { print "make:   fetching " $$2; fflush() } \
		       /^Installing collected/ { print "make:   installing them (the longest step)"; fflush() }'
	@echo "make: $(VENV) is ready"
	@touch $(STAMP)

$(VENV): $(STAMP)

# daphne is first in INSTALLED_APPS, so this runserver is daphne's (ASGI, WebSockets).
# daphne only logs when it cannot listen, and keeps running; so ask for the port first.
run: $(STAMP) compilemessages
	@$(PY) scripts/port_is_free.py $(HOST) $(PORT)
	@echo "make: migrating the development database (db.sqlite3)"
	@$(PY) manage.py migrate --noinput
	@echo "make: serving http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	$(PY) manage.py runserver $(HOST):$(PORT)

# A staff account for the admin (/admin/) on the development database; asks for a
# name, an e-mail address (may be empty) and a password, or takes them from
# DJANGO_SUPERUSER_USERNAME, DJANGO_SUPERUSER_EMAIL and DJANGO_SUPERUSER_PASSWORD.
admin: $(STAMP)
	@$(PY) manage.py migrate --noinput --verbosity 0
	$(PY) manage.py createsuperuser $(if $(DJANGO_SUPERUSER_PASSWORD),--noinput)

# The inner loop, for every edit: lint, then the engines, computer players and room
# services (no servers, no browser, no slow tests). `make test` is still the whole truth.
# One process: starting xdist workers costs more than they save on this small set.
check: lint
	$(PY) -m pytest -q -m "not slow" tests/games tests/rooms --ignore=tests/games/test_cli.py

# Everything, in $(WORKERS) processes, with coverage of every process the tests start
# (pyproject.toml [tool.coverage.*]); fails below the coverage floor. pytest's exit
# code 5 ("no tests collected") is a failure too: make stops on any non-zero. The
# fifteen slowest tests are listed at the end: they are where the suite's time goes.
test: lint
	$(PY) scripts/compile_messages.py --check
	@$(PY) manage.py js_catalogue
	@rm -f .coverage .coverage.*
	$(PY) -m coverage run -m pytest -n $(WORKERS) --dist worksteal --durations=15
	@$(PY) -m coverage combine --quiet
	$(PY) scripts/coverage_report.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)
	@if [ -f bench/run_all.py ]; then $(PY) bench/run_all.py; else echo "no bench/run_all.py"; fi

# Production: static files, schema, then one daphne on $PORT (systemd runs several).
serve: $(STAMP) compilemessages
	$(PY) manage.py collectstatic --noinput
	$(PY) manage.py migrate --noinput
	$(VENV)/bin/daphne -b 127.0.0.1 -p $(PORT) config.asgi:application

# Needs GNU gettext (xgettext/msgmerge); only translators run this. games/ is read
# for the declarations' titles and labels (marked with games.base.gettext_noop).
messages: $(STAMP)
	$(PY) manage.py makemessages -l bn -l en --no-location \
		--ignore=.venv --ignore=staticfiles --ignore=tests --ignore=bench \
		--ignore=static/js/i18n
	$(PY) manage.py makemessages -d djangojs -l bn -l en --no-location \
		--ignore=.venv --ignore=staticfiles --ignore=tests --ignore=bench \
		--ignore=static/js/i18n

# Pure Python, so it works on a machine without gettext; writes only stale .mo files,
# then the JavaScript catalogues as static files (static/js/i18n/, not committed).
compilemessages: $(STAMP)
	$(PY) scripts/compile_messages.py
	@$(PY) manage.py js_catalogue

clean:
	rm -rf staticfiles .pytest_cache .ruff_cache .coverage .coverage.*
