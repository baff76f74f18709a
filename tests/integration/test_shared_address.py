"""Many players share one address (carrier NAT): one of them guessing room codes
at every door must not lock the others out, nor itself out of its own table.

Two daphne processes on PostgreSQL + Redis, behind a pretend proxy that sets
X-Real-IP (KHELAGHOR_CLIENT_IP_HEADER), so every client here comes from one
carrier-NAT address chosen for this run; the counters live in Redis, so what
one process counted the other refuses.
"""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from rooms import codes, guessing
from tests.integration import tables
from tests.integration.conftest import servers, shared_env
from tests.room_client import RoomClient

pytestmark = [pytest.mark.integration]

# One address from the carrier-grade NAT range (100.64.0.0/10), new each run so
# counters left in Redis by an earlier run (for up to ten minutes) do not count.
ADDRESS = f"100.{random.randint(64, 127)}.{random.randint(0, 255)}.{random.randint(1, 254)}"
# A code containing a blocked word is never given to a room (rooms.codes.is_clean),
# so each of these is certainly a miss, whatever other tests left open.
NEVER_ISSUED = sorted({f"{word}{letter}" for word in ("PAD", "GUD", "BUM")
                       for letter in codes.ALPHABET}
                      | {f"{letter}{word}" for word in ("PAD", "GUD", "BUM")
                         for letter in codes.ALPHABET})[:100]


@pytest.fixture(scope="module")
def behind_one_proxy(postgres_service, redis_service):
    env = shared_env(postgres_service, redis_service,
                     KHELAGHOR_CLIENT_IP_HEADER="HTTP_X_REAL_IP")
    with servers(env, 2) as pair:
        yield pair


class Phone(RoomClient):
    """A player's phone: every request and socket says it comes from ADDRESS."""

    def __init__(self, base_url: str, name: str) -> None:
        super().__init__(base_url, name)
        self.http.addheaders = [("X-Real-IP", ADDRESS)]

    def _cookies(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    def open_socket(self, code: str):
        return websockets.connect(
            f"{self.base_url.replace('http', 'ws', 1)}/ws/rooms/{code}/",
            additional_headers={"Cookie": self._cookies(), "X-Real-IP": ADDRESS},
            origin=self.base_url, max_size=2**22,
        )

    async def connect(self, code: str) -> dict:
        self.code = code
        self.ws = await self.open_socket(code)
        return await self.wait_for(lambda m: m["type"] == "snapshot")


@dataclass
class Answer:
    door: str
    code: str  # "ok", "not_found" or "rate_limited"
    retry_after: int | None = None
    text: str = ""


def http_answer(phone: Phone, door: str, request: urllib.request.Request) -> Answer:
    try:
        with phone.http.open(request, timeout=20) as response:
            status, headers, body = response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        status, headers, body = exc.code, exc.headers, exc.read()
    if status == 429:
        text = body.decode()
        if headers.get("Content-Type", "").startswith("application/json"):
            answer = json.loads(body)
            assert answer["code"] == "rate_limited"
            assert answer["retry_after"] == int(headers["Retry-After"])
            text = answer["message"]
        return Answer(door, "rate_limited", int(headers["Retry-After"]), text)
    return Answer(door, "not_found" if status == 404 else f"http {status}")


def knock(phone: Phone, door: str, code: str) -> Answer:
    """Ask one HTTP door for ``code``."""
    url = phone.base_url
    if door == "join":
        request = urllib.request.Request(f"{url}/join/?code={code}")
    elif door == "page":
        request = urllib.request.Request(f"{url}/r/{code}/")
    elif door == "api":
        request = urllib.request.Request(f"{url}/api/rooms/{code}/")
    else:
        token = phone._cookie("csrftoken") or ""
        request = urllib.request.Request(
            f"{url}/r/{code}/report/",
            data=urllib.parse.urlencode({"reason": "spam", "csrfmiddlewaretoken": token}).encode(),
            headers={"Referer": url + "/", "Accept": "application/json"},
        )
    return http_answer(phone, door, request)


async def knock_socket(phone: Phone, code: str) -> Answer:
    async with phone.open_socket(code) as ws:
        first = json.loads(await ws.recv())
        assert first["type"] == "error", first
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
        expected_close = {"not_found": 4004, "rate_limited": 4029}[first["code"]]
        assert closed.value.rcvd.code == expected_close
        return Answer("socket", first["code"], first.get("retry_after"), first["message"])


async def test_one_guesser_behind_a_shared_address_locks_out_only_itself(behind_one_proxy):
    server_a, server_b = behind_one_proxy
    host = Phone(server_a.base_url, "Tanvir")
    host.sign_in()
    room = host.create_room("snakes", 3)
    await host.connect(room)
    guesser = Phone(server_b.base_url, "Guesser")
    guesser.sign_in()
    own_table = guesser.create_room("ludo", 2)
    assert (await guesser.connect(own_table))["you"]["seat"] == 0
    await guesser.close()
    neighbour = Phone(server_b.base_url, "রুমি")
    neighbour.sign_in()

    answers: list[Answer] = []
    try:
        for number, code in enumerate(NEVER_ISSUED):
            # The guesser alternates between the two processes: they count together.
            guesser.base_url = (server_a, server_b)[number % 2].base_url
            for door in ("join", "page", "api", "report"):
                answers.append(knock(guesser, door, code))
            answers.append(await knock_socket(guesser, code))
            if number == 50:
                # Half-way, well past its limit: the neighbour joins the host's room
                # by its code, in lower case as a friend would type it, and sits.
                assert knock(neighbour, "page", room).code == "http 200"
                assert (await neighbour.connect(room.lower()))["you"]["seat"] is None
                await tables.command(neighbour, {"type": "join"})
                await tables.until(neighbour, lambda m: m["you"]["seat"] == 1)
                await neighbour.close()

        limit = guessing.SESSION_MISSES
        assert len(answers) == 500
        assert [a.code for a in answers[:limit]] == ["not_found"] * limit
        refused = answers[limit:]
        assert {a.code for a in refused} == {"rate_limited"}
        assert {a.door for a in refused} == {"join", "page", "api", "report", "socket"}
        for answer in refused:
            assert 0 < answer.retry_after <= guessing.WINDOW_SECONDS
            assert "মিনিট পরে আবার চেষ্টা করুন" in answer.text, answer

        # Even the host's real code is refused to the guesser (no oracle) ...
        assert knock(guesser, "api", room).code == "rate_limited"
        # ... but its own table never is, on either process.
        for server in (server_a, server_b):
            guesser.base_url = server.base_url
            assert (await guesser.connect(own_table))["you"]["seat"] == 0
            await guesser.close()
            assert knock(guesser, "page", own_table).code == "http 200"

        # The neighbour reconnects to its seat (on the other process), and so
        # does the host.
        neighbour.base_url = server_a.base_url
        assert (await neighbour.connect(room))["you"]["seat"] == 1
        await host.close()
        host.base_url = server_b.base_url
        assert (await host.connect(room))["you"]["seat"] == 0
        # The address is not locked: the neighbour's own typo is a plain miss.
        assert knock(neighbour, "join", NEVER_ISSUED[-1]).code == "not_found"
    finally:
        await tables.close_all(host, guesser, neighbour)
