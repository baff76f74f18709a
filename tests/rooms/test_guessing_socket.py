"""The socket door of the guessing limit, through the real ASGI stack: a refused
guesser is told when to try again in its own language, and still reaches the
room it sits in."""

from __future__ import annotations

import math

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from config.asgi import application
from rooms import guessing, services
from rooms.services import Actor
from tests.rooms.test_consumer import aguest
from tests.rooms.test_guessing import bengali_minutes

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()
    yield
    cache.clear()


async def first_answer(code: str, key: str, *extra: tuple[bytes, bytes], cookies: str = ""):
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
               (b"cookie", f"sessionid={key}{cookies}".encode()), *extra]
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    answer = await socket.receive_json_from(timeout=5)
    await socket.disconnect()
    return answer


async def spend_guesses(key: str) -> None:
    for _ in range(guessing.SESSION_MISSES):
        assert (await first_answer("ZZZZ", key))["code"] == "not_found"


async def test_a_refused_guesser_reads_when_to_retry_in_its_language():
    key = await aguest("Guesser")
    await spend_guesses(key)
    bengali = await first_answer("ZZZY", key)
    assert bengali["code"] == "rate_limited" and 0 < bengali["retry_after"] <= 600
    minutes = bengali_minutes(bengali["retry_after"])
    assert bengali["message"].endswith(f"{minutes} মিনিট পরে আবার চেষ্টা করুন।")
    english = await first_answer("ZZZY", key, cookies="; django_language=en")
    n = math.ceil(english["retry_after"] / 60)
    unit = "minute" if n == 1 else "minutes"
    assert english["message"] == f"Too many unknown room codes. Please try again in {n} {unit}."
    browser = await first_answer("ZZZY", key, (b"accept-language", b"en-GB,en;q=0.8"))
    assert browser["message"].startswith("Too many unknown room codes.")


async def test_a_refused_guesser_still_gets_back_to_its_own_seat():
    key = await aguest("Tanvir")
    room = await sync_to_async(services.room_create)(
        actor=Actor(session_key=key, name="Tanvir"), game="snakes", seats=2)
    await spend_guesses(key)
    assert (await first_answer("ZZZY", key))["code"] == "rate_limited"
    snapshot = await first_answer(room.code, key)
    assert snapshot["type"] == "snapshot" and snapshot["you"]["seat"] == 0
