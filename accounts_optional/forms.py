"""Sign-up and a sign-in form that refuses to be guessed at.

Failed sign-ins are counted in the cache per username *and address* pair: after
``MAX_FAILURES`` in ``WINDOW`` seconds that pair is refused (even with the right
password) until the window passes, with a message that says when. Counting per
username alone would let anyone lock a player (or a moderator) out by typing
their name wrongly ten times. Many players share one address (carrier NAT), so
the address alone has a far higher limit, ``ADDRESS_MAX_FAILURES``, which stops
one address trying many usernames without locking out its neighbours at once.
"""

from __future__ import annotations

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from config.clients import client_address
from config.ratelimit import FailureWindow, minutes_to_wait

from .usernames import HELP_TEXT, player_username

MAX_FAILURES = 10  # per username and address
ADDRESS_MAX_FAILURES = 100  # per address, whatever the username
WINDOW = 15 * 60  # seconds


_pair_failures = FailureWindow("login-fail", MAX_FAILURES, WINDOW)
_address_failures = FailureWindow("login-fail-address", ADDRESS_MAX_FAILURES, WINDOW)


def _pair_key(username: str, address: str) -> str:
    return f"u:{username.strip().lower()[:150]}|a:{address}"


def retry_after(username: str, address: str) -> int:
    """Seconds until this username may be tried from this address again; 0: now."""
    return max(_pair_failures.retry_after(_pair_key(username, address)),
               _address_failures.retry_after(f"a:{address}"))


def count_failure(username: str, address: str) -> None:
    _pair_failures.count(_pair_key(username, address))
    _address_failures.count(f"a:{address}")


class BengaliUsernames:
    """For a form that writes a user's username: Bengali names too
    (accounts_optional.usernames), by this form's own check and help in place
    of the model field's. The sign-up form, and the admin's add and change
    forms (accounts_optional.admin)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = HELP_TEXT
        self.fields["username"].validators.append(player_username)

    def _get_validation_exclusions(self):
        # The model's username check refuses Bengali marks; this form checked the
        # name above, and Django's forms its uniqueness, in any case.
        return {*super()._get_validation_exclusions(), "username"}


class SignUpForm(BengaliUsernames, UserCreationForm):
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


def wait_message(seconds: int) -> str:
    minutes, shown = minutes_to_wait(seconds)
    return ngettext(
        "Too many failed sign-in attempts. Please try again in %(minutes)s minute.",
        "Too many failed sign-in attempts. Please try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": shown}


class RateLimitedLoginForm(AuthenticationForm):
    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = client_address(self.request) if self.request else ""
        if wait := retry_after(username, address):
            raise forms.ValidationError(wait_message(wait), code="rate_limited")
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
