"""Top-level URLs: the site's pages, the rooms app, i18n and the health check."""

from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from accounts_optional import views as accounts_views
from config import installable, pages, views

urlpatterns = [
    path("", pages.home, name="home"),
    path("rules/<slug:slug>/", pages.rules, name="rules"),  # one per game, by its slug
    # The installable app: its manifest, the service worker (at the root, so its
    # scope is the whole site) and the page it shows offline.
    path("manifest.webmanifest", installable.manifest, name="manifest"),
    path("sw.js", installable.service_worker, name="service_worker"),
    path("offline/", installable.offline, name="offline"),
    path("leaderboard/<slug:slug>/", accounts_views.leaderboard, name="leaderboard"),
    path("i18n/", include("django.conf.urls.i18n")),
    # The JavaScript strings (domain djangojs) for the room page's gettext().
    path("jsi18n/", JavaScriptCatalog.as_view(domain="djangojs"), name="javascript-catalog"),
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/", include("accounts_optional.urls")),
    path("", include("rooms.moderation_urls")),
    path("", include("rooms.history_urls")),
    path("", include("rooms.urls")),
]
