"""Room codes: four letters a person can read aloud and type on a phone.

The alphabet leaves out I, L and O (they pass for 1, l, 0 or each other), so
what a friend reads off a screen is what they type. Codes are case-insensitive,
unique among rooms that are not closed, and never spell a rude word in English
or in Bengali written in Latin letters (checked on every 3- and 4-letter run).

Expiry: a room's code is free again as soon as the room is closed. A room that
sits idle is closed by ``rooms.services.rooms_expire``: a lobby after 2 hours,
a finished table after 2 hours, a table in play after 24 hours without a move.
"""

from __future__ import annotations

import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 4
_CODE_RE = re.compile(rf"^[{ALPHABET}]{{{CODE_LENGTH}}}$")

# Words no code may contain (3 or 4 letters; look-alike letters already gone).
BLOCKED = frozenset(
    """
    ASS ARSE BUM CUM CUNT DICK COCK FUCK FUK FCK SHIT SHT TWAT PORN SEX SEXY RAPE
    NAZI KKK KYS SUCK TITS TIT WANK PISS PUKE DAMN JERK FART BOOB HORE HOE THOT
    NIGA NGR FAG FAGS GAY SPAZ DUMB HATE KUNT PUSY PUSS POOP CRAP JEW
    CHOD CHUD CHUT CHOT GAND GANDU BHOS MAGI MAAG BOKA BOKACHODA KUTA KUTTA HARAM
    SHALA SALA BESYA RANDI RAND MUTH MUTE HAGU HAGA GUDA GUD PAD PADA DHON BAJE
    """.split()
)


def normalize(text: str) -> str:
    """What a person typed (any case, spaces, a pasted link's tail) → a code or ''."""
    text = text or ""
    if _CODE_RE.fullmatch(text):  # already a code, as every socket's message names it
        return text
    link = re.search(r"/r/([A-Za-z]{4})\b", text)
    if link:  # a pasted share link
        text = link.group(1)
    if re.search(r"[0-9]", text):
        return ""  # a digit is a typo, not a separator: do not guess
    cleaned = re.sub(r"[^A-Za-z]", "", text).upper()
    return cleaned if _CODE_RE.match(cleaned) else ""


def is_clean(code: str) -> bool:
    for size in (3, 4):
        for start in range(0, CODE_LENGTH - size + 1):
            if code[start : start + size] in BLOCKED:
                return False
    return True


def random_code() -> str:
    while True:
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        if is_clean(code):
            return code
