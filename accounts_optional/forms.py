"""Sign-up and a sign-in form that refuses to be guessed at.

Failed sign-ins are counted in the cache per username and per address; after
``MAX_FAILURES`` in ``WINDOW`` seconds further attempts are refused (even with
the right password) until the window passes, with a message that says so.
"""

from __future__ import annotations

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.utils.translation import gettext_lazy as _

from config.clients import client_address
from config.ratelimit import FailureWindow

MAX_FAILURES = 10
WINDOW = 15 * 60  # seconds


_failures = FailureWindow("login-fail", MAX_FAILURES, WINDOW)


def _keys(username: str, address: str) -> tuple[str, str]:
    return f"u:{username.strip().lower()[:150]}", f"a:{address}"


def too_many_failures(username: str, address: str) -> bool:
    return _failures.exceeded(*_keys(username, address))


def count_failure(username: str, address: str) -> None:
    _failures.count(*_keys(username, address))


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Email (optional)"), required=False,
        help_text=_("Only to reset a forgotten password. We send nothing else."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def save(self, commit=True):
        user = super().save(commit=False)
        user.email = self.cleaned_data.get("email", "")
        if commit:
            user.save()
        return user


class RateLimitedLoginForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "rate_limited": _(
            "Too many failed sign-in attempts. Please wait 15 minutes and try again."
        ),
    }

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = client_address(self.request) if self.request else ""
        if too_many_failures(username, address):
            raise forms.ValidationError(self.error_messages["rate_limited"], code="rate_limited")
        try:
            return super().clean()
        except forms.ValidationError:
            count_failure(username, address)
            raise


class RateLimitedAdminLoginForm(RateLimitedLoginForm, AdminAuthenticationForm):
    """The admin's sign-in, counted with the same limits as the site's."""

    error_messages = {
        **AdminAuthenticationForm.error_messages,
        **RateLimitedLoginForm.error_messages,
    }
