"""/accounts/: optional accounts with Django's auth views and our templates."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy
from django.utils.translation import gettext_lazy as _

from accounts_optional import views

T = "accounts/"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", views.SignOutView.as_view(), name="logout"),
    path("profile/", views.profile, name="profile"),
    path("password/change/", auth_views.PasswordChangeView.as_view(
        template_name=T + "form.html", success_url=reverse_lazy("password_change_done"),
        extra_context={"title_key": "password_change"}), name="password_change"),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(
        template_name=T + "message.html", extra_context={"title_key": "password_change_done"}),
        name="password_change_done"),
    path("password/reset/", auth_views.PasswordResetView.as_view(
        template_name=T + "form.html", email_template_name=T + "password_reset_email.txt",
        subject_template_name=T + "password_reset_subject.txt",
        extra_context={"title_key": "password_reset", "submit": _("Send the link")}),
        name="password_reset"),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(
        # Django's own Bengali catalogue lacks this title: named here, it
        # stays in ours (makemessages keeps only what our code says).
        template_name=T + "message.html", extra_context={
            "title_key": "password_reset_done", "title": _("Password reset sent")}),
        name="password_reset_done"),
    path("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        template_name=T + "form.html", extra_context={"title_key": "password_reset_confirm"}),
        name="password_reset_confirm"),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(
        template_name=T + "message.html", extra_context={"title_key": "password_reset_complete"}),
        name="password_reset_complete"),
]
