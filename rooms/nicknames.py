"""Guest nicknames: 1-20 characters of Bengali or Latin letters, digits and spaces.

Control, formatting and invisible characters (zero-width joiners included) are
refused, not silently dropped, so what others see is what the player typed. A
name must also *show*: it needs a letter or digit, and a Bengali vowel sign,
virama or other mark must sit on a letter, because marks alone (twenty viramas,
say) draw nothing at the table but a smudge. Each refusal says why, in the
active language.
Templates escape names as usual; the client inserts them as text, never HTML.
"""

from __future__ import annotations

import re
import unicodedata

from django.contrib.auth import get_user_model
from django.utils.translation import gettext

from config.digits import to_local_digits

MAX_LENGTH = 20
# Latin letters, digits, spaces and the Bengali block (letters, vowel signs,
# virama, Bengali digits).
_ALLOWED = re.compile(r"^[A-Za-z0-9 \u0980-\u09FF]+$")
# Characters that take no room of their own: formatting (zero-width space and
# joiners, BOM, soft hyphen), controls, line and paragraph separators, and
# spaces other than the plain one.
_INVISIBLE = frozenset(["Cf", "Cc", "Zl", "Zp"])


class BadNickname(ValueError):
    pass


def _shows(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def clean_nickname(raw: object) -> str:
    if not isinstance(raw, str):
        raise BadNickname(gettext("A nickname must be text"))
    name = unicodedata.normalize("NFC", raw).strip()
    name = re.sub(r" {2,}", " ", name)
    if not name:
        raise BadNickname(gettext("Please choose a nickname"))
    if len(name) > MAX_LENGTH:
        raise BadNickname(
            # The number in the page's digits: the refusal is sent already filled.
            gettext("A nickname has at most %(n)s characters")
            % {"n": to_local_digits(str(MAX_LENGTH))}
        )
    if any(unicodedata.category(ch) in _INVISIBLE or (ch.isspace() and ch != " ")
           for ch in name):
        raise BadNickname(gettext(
            "A nickname cannot contain invisible characters such as zero-width spaces"
        ))
    # Unassigned code points inside the Bengali block are not letters anyone types.
    if not _ALLOWED.match(name) or any(unicodedata.category(ch) == "Cn" for ch in name):
        raise BadNickname(
            gettext("A nickname may use Bengali or English letters, digits and spaces")
        )
    if not any(_shows(ch) for ch in name):
        raise BadNickname(gettext("A nickname needs at least one letter or digit"))
    for before, ch in zip(" " + name, name, strict=False):  # before: the character left of ch
        if unicodedata.category(ch)[0] == "M" and before == " ":
            raise BadNickname(gettext("A vowel sign or mark must follow a letter"))
    return name


def keep_on_account(user_id: int | None, nickname: str) -> None:
    """A signed-in player's nickname is kept on their account too (Django's
    ``first_name``, the name a person goes by), so that signing in on another
    phone brings it back: the sign-up page promises "your name across phones"."""
    if user_id is not None:
        get_user_model().objects.filter(pk=user_id).update(first_name=nickname)
