"""The installable app: the web app manifest, the service worker, the offline page.

The service worker is served from the site's root (``/sw.js``) so that its
scope is the whole site; it is a template because it lists the static files
by their served (hashed, in production) names. What it caches and what it never
touches is said in ``templates/installable/sw.js``.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from games.registry import declarations

THEME_COLOUR = "#a3341f"
BACKGROUND_COLOUR = "#fbf7ef"

# Static files the app needs to show the offline page and the rules pages.
PRECACHED_STATIC = [
    "css/site.css", "img/icon.svg", "img/app/icon.svg", "img/app/icon-192.png",
    "js/install.js",
]
# Paths the service worker never answers from a cache nor stores: live rooms
# and everything that belongs to one person.
NEVER_CACHED = ["/r/", "/api/", "/ws/", "/admin/", "/accounts/", "/i18n/", "/jsi18n/",
                "/sw.js", "/healthz"]


@require_GET
@cache_control(max_age=3600)
def manifest(request: HttpRequest) -> JsonResponse:
    icons = [
        {"src": static("img/app/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        {"src": static("img/app/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("img/app/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {"src": static("img/app/icon-maskable-512.png"), "sizes": "512x512",
         "type": "image/png", "purpose": "maskable"},
    ]
    response = JsonResponse({
        "id": "/",
        "name": "খেলাঘর · Khelaghor",
        "short_name": "খেলাঘর",
        "description": "বন্ধুদের সঙ্গে লায়ার্স ডাইস, লুডু আর সাপ-লুডু, ব্রাউজারে। "
                       "Liar's Dice, Ludo and Snakes & Ladders with friends, in the browser.",
        "lang": "bn",
        "dir": "ltr",
        "start_url": reverse("home"),
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": icons,
        "categories": ["games"],
    }, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


def _precached_pages() -> list[str]:
    return [reverse("offline"), *(reverse("rules", args=[game.slug]) for game in declarations())]


def _static_prefix() -> str:
    # static("") would ask the manifest storage for a file named "" (production).
    prefix = settings.STATIC_URL
    return prefix if prefix.startswith(("/", "http")) else "/" + prefix


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    pages = _precached_pages()
    assets = [static(name) for name in PRECACHED_STATIC]
    # A new list of files is a new cache: a deploy that changes a file's hashed
    # name replaces the old cache when the new worker activates.
    version = hashlib.sha256("\n".join(pages + assets).encode()).hexdigest()[:12]
    body = render_to_string("installable/sw.js", {"config": json.dumps({
        "version": version, "pages": pages, "assets": assets, "never": NEVER_CACHED,
        "offline": reverse("offline"), "staticPrefix": _static_prefix(),
        # Hashed names (production) never change content, so the cache may answer
        # first; plain names (development) must be fetched again to see edits.
        "staticHashed": isinstance(staticfiles_storage, ManifestFilesMixin),
    })})
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    # Browsers look for a new worker at least daily; no-cache makes it every visit.
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "offline.html")
