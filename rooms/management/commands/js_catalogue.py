"""Write the JavaScript translation catalogue as static files, one per language.

``/jsi18n/`` (Django's JavaScriptCatalog) rebuilt the same 30 KB script on
every page load and could not be cached for long. This writes exactly what it
serves to ``static/js/i18n/<language>.js``, so that pages load it as a static
file: hashed and compressed ahead of time by collectstatic, served by nginx
with a year's cache in production (docs/deploy.md). Run by ``make run``,
``make serve`` and ``make test`` (the compilemessages step) and by the test
suite's start (tests/conftest.py), so a clean clone never lacks it; the files
are generated, not committed (.gitignore). Only files whose text changed are
written, atomically, so parallel test workers may all run it.

    python manage.py js_catalogue [--check]
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.test import RequestFactory
from django.utils import translation
from django.views.i18n import JavaScriptCatalog

OUT_DIR = Path(settings.BASE_DIR) / "static" / "js" / "i18n"


def catalogue_text(language: str) -> str:
    """The script /jsi18n/ serves in ``language``."""
    with translation.override(language):
        request = RequestFactory().get("/jsi18n/")
        response = JavaScriptCatalog.as_view(domain="djangojs")(request)
    return response.content.decode("utf-8")


def stale_files() -> dict[Path, str]:
    """Every catalogue file that is missing or differs, with its text."""
    stale = {}
    for language, _name in settings.LANGUAGES:
        path = OUT_DIR / f"{language}.js"
        text = catalogue_text(language)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale[path] = text
    return stale


def write_catalogues() -> list[Path]:
    written = []
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for path, text in stale_files().items():
        handle, temporary = tempfile.mkstemp(dir=OUT_DIR, prefix=".tmp-", suffix=".js")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
        written.append(path)
    return written


class Command(BaseCommand):
    help = "Write static/js/i18n/<language>.js from the djangojs catalogues."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true",
                            help="fail if a file is missing or out of date; write nothing")

    def handle(self, *args, check=False, **options):
        if check:
            stale = stale_files()
            if stale:
                names = ", ".join(str(p.relative_to(settings.BASE_DIR)) for p in stale)
                raise CommandError(f"out of date: {names}; run `make compilemessages`")
            return
        for path in write_catalogues():
            self.stdout.write(f"wrote {path.relative_to(settings.BASE_DIR)}")
