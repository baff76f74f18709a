"""JSON text for what the server sends and stores on every move.

A move renders a payload per seat (the hands of Liar's Dice differ) and
writes its events to the move log; Python's own encoder was the largest
single piece of a Liar's Dice move's CPU (docs/performance.md, round 14).
orjson writes the same text about six times faster: compact separators,
other scripts' letters as they are (Bengali names stay readable and short),
keys that are not strings turned into strings as Python's encoder does.
Where they differ: a float with a negative exponent (2.5e-7 where Python
writes 2.5e-07, the same number); NaN and the infinities, which are not JSON,
written as null; and datetimes, dataclasses and enums written where Python's
encoder refuses them. Nothing the site sends holds any of those.
Whatever orjson refuses (an integer wider than 64 bits, say) goes to
Python's encoder, so that text and those errors stay Python's.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS
_PYTHON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def compact_bytes(value: Any) -> bytes:
    """``value`` as compact JSON, UTF-8."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return _PYTHON.encode(value).encode()


def compact(value: Any) -> str:
    """``value`` as compact JSON text."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except orjson.JSONEncodeError:
        return _PYTHON.encode(value)
