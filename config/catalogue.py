"""Where a page loads its JavaScript catalogue: ``{% js_catalogue_src %}``.

The catalogue is a static file written by ``manage.py js_catalogue``
(``static/js/i18n/<language>.js``: cached and compressed like any static file).
A site started without that step (``runserver`` straight after installing, or a
deployment that skipped it before collectstatic) has no such file: without a
fallback every page's scripts would stop at their first ``gettext`` under
DEBUG, and outside DEBUG the manifest storage raises, so every page would be a
500. Then the page loads ``/jsi18n/`` instead, which builds the same script on
each request (slower, never broken), and the log says which step was missed.
A template builtin (settings.TEMPLATES ``builtins``).
"""

from __future__ import annotations

import logging

from django import template
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language

register = template.Library()
log = logging.getLogger(__name__)

# Per language, the URL decided on first use: the file does not come and go
# while a process runs (collectstatic and js_catalogue run before it starts).
_decided: dict[str, str] = {}


def catalogue_src(language: str) -> str:
    """The static catalogue's URL for ``language``, or ``/jsi18n/`` without one."""
    if language in _decided:
        return _decided[language]
    path = f"js/i18n/{language}.js"
    try:
        url = static(path)  # the manifest storage raises for a file it never collected
    except ValueError:
        url = None
    # The plain storage (DEBUG) names any path; the file must exist to serve.
    plain = not isinstance(staticfiles_storage, ManifestFilesMixin)
    if url is None or plain and not finders.find(path):
        url = reverse("javascript-catalog")
        log.warning(
            "static/%s is missing: pages load %s instead; run "
            "`manage.py js_catalogue` (before collectstatic outside DEBUG)", path, url)
    _decided[language] = url
    return url


@register.simple_tag
def js_catalogue_src() -> str:
    return catalogue_src(get_language() or "bn")
