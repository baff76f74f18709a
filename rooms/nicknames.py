"""Guest nicknames: 1-20 characters of Bengali or Latin letters, digits and spaces.

Control, formatting and invisible characters (zero-width joiners included) are
refused, not silently dropped, so what others see is what the player typed.
Templates escape names as usual; the client inserts them as text, never HTML.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LENGTH = 20
# Latin letters, digits, spaces and the Bengali block (letters, vowel signs,
# virama, Bengali digits).
_ALLOWED = re.compile(r"^[A-Za-z0-9 \u0980-\u09FF]+$")


class BadNickname(ValueError):
    pass


def clean_nickname(raw: object) -> str:
    if not isinstance(raw, str):
        raise BadNickname("A nickname must be text")
    name = unicodedata.normalize("NFC", raw).strip()
    name = re.sub(r" {2,}", " ", name)
    if not name:
        raise BadNickname("Please choose a nickname")
    if len(name) > MAX_LENGTH:
        raise BadNickname(f"A nickname has at most {MAX_LENGTH} characters")
    if not _ALLOWED.match(name):
        raise BadNickname("A nickname may use Bengali or English letters, digits and spaces")
    # Unassigned code points inside the Bengali block are not letters anyone types.
    if any(unicodedata.category(ch) == "Cn" for ch in name):
        raise BadNickname("A nickname may use Bengali or English letters, digits and spaces")
    return name
