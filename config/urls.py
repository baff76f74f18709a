"""Top-level URLs. Rooms and rules pages will add their own includes here."""

from django.contrib import admin
from django.urls import include, path

from config import views

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("healthz", views.healthz, name="healthz"),
]
