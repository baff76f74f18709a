"""Helpers that seat real clients at real tables (tests.room_client.RoomClient) and
read what the server published: the room's JSON snapshot and a game's record."""

from __future__ import annotations

import asyncio
import collections
import json
import random
import time
import urllib.request
from collections import defaultdict
from typing import Any

import psycopg

from games.bots import make_bot
from tests.room_client import RoomClient


def fetch_json(client: RoomClient, path: str) -> Any:
    """GET ``path`` with the client's cookies; the JSON body."""
    request = urllib.request.Request(client.base_url + path)
    with client.http.open(request, timeout=20) as response:
        assert response.status == 200, f"GET {path}: HTTP {response.status}"
        return json.loads(response.read())


def room_api(client: RoomClient, code: str) -> dict[str, Any]:
    return fetch_json(client, f"/api/rooms/{code}/")


def record_of(client: RoomClient, message: dict[str, Any]) -> dict[str, Any]:
    """The record of the game in ``message`` (a finished game's snapshot/update)."""
    url = message["game"]["record_url"]
    assert url, "a finished game links its record"
    return fetch_json(client, url)


def signed_in(base_url: str, name: str) -> RoomClient:
    client = RoomClient(base_url, name)
    client.sign_in()
    return client


async def open_table(
    host_url: str, guest_url: str, game: str, seats: int, *, bots: int | None = None,
    bot_kind: str = "random", **options: str,
) -> tuple[RoomClient, RoomClient, str]:
    """A host and a guest (two sessions, maybe two servers) at a new room: the
    guest joins by the code in lower case; computers fill ``bots`` seats (all
    the others by default). Not started."""
    host = signed_in(host_url, "Tanvir")
    guest = signed_in(guest_url, "রুমি")
    code = host.create_room(game, seats, **options)
    await host.connect(code)
    await guest.connect(code.lower())
    await command(guest, {"type": "join"})
    filled = seats if bots is None else 2 + bots
    for _ in range(filled - 2):
        await command(host, {"type": "add_bot", "bot": bot_kind})
    for client in (host, guest):
        await until(client, lambda m: sum(s["kind"] != "open" for s in m["room"]["seats"])
                    == filled)
    return host, guest, code


async def poll_until(read, done, timeout: float = 60):
    """``read()`` every 0.1 s until ``done`` of it, or ``timeout`` seconds: the last read."""
    deadline = time.monotonic() + timeout
    value = read()
    while not done(value) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # polling the database, bounded by the deadline
        value = read()
    return value


async def until(client: RoomClient, predicate, timeout: float = 15.0) -> dict[str, Any]:
    """The client's latest room message if it already satisfies ``predicate``,
    else the next snapshot or update that does."""
    if client.last is not None and predicate(client.last):
        return client.last
    return await client.wait_for(
        lambda m: m["type"] in ("snapshot", "update") and predicate(m), timeout
    )


def game_number_is(number: int):
    return lambda m: m["game"] is not None and m["game"]["number"] == number


async def start(host: RoomClient, *others: RoomClient) -> int:
    """The host starts (or, after the results, rematches); returns the new
    game's number once every client has seen it begin."""
    previous = (host.last.get("game") or {}).get("number", 0)
    await command(host, {"type": "start" if previous == 0 else "rematch"})
    await asyncio.gather(*(until(c, game_number_is(previous + 1)) for c in (host, *others)))
    return previous + 1


# The room refuses more than 20 messages in 2 s from one socket, counted when
# the server reads them (a backlog arrives bunched). A program that answers at
# wire speed keeps under it: at most 16 sends in any 2.4 s.
RATE_SENDS, RATE_WINDOW = 16, 2.4


class Pacer:
    """A sliding-window send budget (pacing for the server's rate limit); one
    per client, see ``pacer``."""

    def __init__(self) -> None:
        self.sent: collections.deque[float] = collections.deque()

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        while self.sent and loop.time() - self.sent[0] > RATE_WINDOW:
            self.sent.popleft()
        if len(self.sent) >= RATE_SENDS:
            await asyncio.sleep(self.sent[0] + RATE_WINDOW - loop.time())  # pacing only
            self.sent.popleft()
        self.sent.append(loop.time())


def pacer(client: RoomClient) -> Pacer:
    if not hasattr(client, "pacer"):
        client.pacer = Pacer()
    return client.pacer


async def command(client: RoomClient, message: dict[str, Any]) -> dict[str, Any]:
    """``client.command`` within the client's send budget."""
    await pacer(client).wait()
    return await client.command(message)


async def play_seat(client: RoomClient, seed: int = 0, timeout: float = 150.0,
                    bot_kind: str = "random") -> dict[str, Any]:
    """Play ``client``'s seat until the game is over: one action per room
    version seen (never a resend), paced under the rate limit."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    rng = random.Random(seed)
    bot = None
    acted_at_version = None
    while client.room_status != "finished":
        if loop.time() > deadline:
            raise TimeoutError(f"{client.name}: the game did not end in {timeout} s")
        if client.my_turn() and acted_at_version != client.version:
            await pacer(client).wait()
            game = client.last["game"]
            bot = bot or make_bot(client.last["room"]["game"], bot_kind)
            action = bot.choose(game["view"], game["legal"], rng)
            acted_at_version = client.version
            await client.send({"type": "action", "version": client.version, "action": action})
        await client.recv(max(0.01, deadline - loop.time()))
    return client.last


async def play_out(*clients: RoomClient, timeout: float = 150.0) -> list[dict[str, Any]]:
    """Every client plays its seat with a random player until the game is over."""
    return list(await asyncio.gather(*(
        play_seat(c, seed=i, timeout=timeout) for i, c in enumerate(clients)
    )))


async def close_all(*clients: RoomClient) -> None:
    for client in clients:
        await client.close()


def version_gaps(client: RoomClient) -> list[tuple[int, int]]:
    """(previous, next) pairs where the client's updates skipped a version; a
    snapshot starts over (it is the whole truth). An update at or below the
    version already held is an echo (e.g. the update of one's own connect that
    arrives after the snapshot); clients ignore those, as the page does."""
    gaps = []
    last = None
    for frame in client.frames:
        if frame["type"] == "snapshot":
            last = frame["version"]
        elif frame["type"] == "update":
            if last is not None and frame["version"] <= last:
                continue
            if last is not None and frame["version"] != last + 1:
                gaps.append((last, frame["version"]))
            last = frame["version"]
    return gaps

def move_logs(postgres_url: str, game_ids: list[int]) -> dict[int, list[tuple]]:
    """game id -> [(seq, event, written at as a Unix time)], read from the table."""
    logs = defaultdict(list)
    with psycopg.connect(postgres_url) as db:
        for game_id, seq, event, created_at in db.execute(
            "SELECT game_id, seq, event, created_at FROM rooms_movelog"
            " WHERE game_id = ANY(%s) ORDER BY game_id, seq", (game_ids,)
        ):
            logs[game_id].append((seq, event, created_at.timestamp()))
    return logs
