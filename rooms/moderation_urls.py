"""Routes for player reports and the staff dashboard (see rooms.moderation_views)."""

from django.urls import path

from rooms import moderation_views

urlpatterns = [
    path("r/<str:code>/report/", moderation_views.report, name="room_report"),
    path("staff/dashboard/", moderation_views.dashboard, name="staff_dashboard"),
]
