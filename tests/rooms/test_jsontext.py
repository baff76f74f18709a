"""rooms.jsontext writes what Python's compact encoder writes, faster; what
orjson refuses goes to Python's encoder, errors included."""

from __future__ import annotations

import json

import pytest

from rooms.jsontext import compact, compact_bytes

PYTHON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

MESSAGES = [
    {"type": "update", "version": 12, "server_time": 1764660000.123,
     "you": {"seat": 2, "nickname": "রাজু ভাই", "hand": [1, 6, 6, 2, 3]},
     "events": [{"type": "bid", "seat": 1, "quantity": 4, "face": 6}],
     "game": {"turn": {"seat": 2, "deadline": 1764660015.5}, "legal": [[5, 6], "challenge"]}},
    {"scores": {2: 1, 3: 0}, "pair": (1, 2), "none": None, "flags": [True, False]},
    {"floats": [0.1, 1e20, -0.0, 3.0, 1.5e300], "escapes": 'a "quote" \\ and \n a line \u2028'},
    [],
    "শুধু লেখা",
]


@pytest.mark.parametrize("value", MESSAGES)
def test_the_text_is_pythons(value):
    assert compact(value) == PYTHON.encode(value)
    assert compact_bytes(value) == PYTHON.encode(value).encode()


def test_a_tiny_float_is_the_same_number_in_a_shorter_exponent():
    assert compact([2.5e-7]) == "[2.5e-7]"  # Python's encoder: 2.5e-07
    assert json.loads(compact([2.5e-7])) == [2.5e-7]


def test_a_value_orjson_refuses_is_written_by_python():
    wide = {"seed": 2**80, "list": [-(2**70)]}
    assert compact(wide) == '{"seed":1208925819614629174706176,"list":[-1180591620717411303424]}'
    assert compact_bytes(wide) == compact(wide).encode()


def test_a_value_neither_can_write_raises_pythons_error():
    with pytest.raises(TypeError, match="not JSON serializable"):
        compact({"x": object(), "big": 2**80})
