"""Usernames in Bengali script.

Django's username check takes "letters" to be what Python's ``\\w`` matches,
which leaves out the vowel signs and other marks of Bengali (the ি of রুমি):
nearly every real Bengali name was refused, with an English error, while the
nickname form took it. The sign-up form and the admin's user forms take the
Bengali block whole as well (accounts_optional.forms.BengaliUsernames). The
user model's own field keeps Django's check: changing it would be a migration
of Django's auth app.
"""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

HELP_TEXT = _("Up to 150 letters (Bengali or English), digits and @ . + - _")

player_username = RegexValidator(
    regex=r"^[\w\u0980-\u09FF.@+-]+\Z",
    message=_("A username is made of letters (Bengali or English), digits and @ . + - _ "
              "only, without spaces."),
)
