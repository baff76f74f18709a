"""A Python client for the room protocol (docs/protocol.md), for the tests that
drive real daphne processes.

It does what a browser does: gets a session and a nickname over HTTP, creates or
joins rooms, keeps one WebSocket per room, tracks the room version from
snapshots and updates, and can play a seat with any of the engines' bots, which
see only the view the server sent. Uses ``websockets``, a development-only
dependency (requirements-dev.txt): that is why this lives under tests/ and not
in the rooms app, which a production process imports. No Django import.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import random
import re
import urllib.parse
import urllib.request
from typing import Any

import websockets

from games.bots import make_bot

RATE_BACKOFF = 1.0  # seconds to wait after a rate_limited error


class ProtocolError(Exception):
    pass


class RoomClient:
    def __init__(self, base_url: str, name: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.name = name
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect()
        )
        self.ws = None
        self.code: str | None = None
        self.version: int | None = None
        self.last: dict[str, Any] | None = None  # the latest snapshot or update
        self.errors: list[dict[str, Any]] = []
        self.frames: list[dict[str, Any]] = []  # every frame received, for audits

    # ---- HTTP ----------------------------------------------------------------

    def _cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def _post(self, path: str, data: dict[str, str]) -> tuple[int, str]:
        if self._cookie("csrftoken") is None:
            self._get("/")
        token = self._cookie("csrftoken") or ""
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(
            self.base_url + path, data=body,
            headers={"Referer": self.base_url + "/", "X-CSRFToken": token},
        )
        return self._open(request)

    def _get(self, path: str) -> tuple[int, str]:
        return self._open(urllib.request.Request(self.base_url + path))

    def _open(self, request) -> tuple[int, str]:
        try:
            with self.http.open(request, timeout=20) as response:
                return response.status, response.headers.get("Location", "")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Location", "")

    def sign_in(self) -> None:
        """A guest session with this client's nickname."""
        status, _ = self._post("/nickname/", {"name": self.name, "next": "/"})
        if status not in (302, 303):
            raise ProtocolError(f"nickname refused: HTTP {status}")

    def create_room(self, game: str, seats: int, pace: str = "normal", **options: str) -> str:
        status, location = self._post(
            "/rooms/new/", {"game": game, "seats": str(seats), "pace": pace, **options}
        )
        match = re.search(r"/r/([A-Z]{4})/", location)
        if status not in (302, 303) or not match:
            raise ProtocolError(f"room not created: HTTP {status} {location}")
        return match.group(1)

    def play_now(self, game: str) -> str:
        status, location = self._post(f"/play/{game}/", {})
        match = re.search(r"/r/([A-Z]{4})/", location)
        if not match:
            raise ProtocolError(f"quick play failed: HTTP {status} {location}")
        return match.group(1)

    # ---- WebSocket -----------------------------------------------------------

    async def connect(self, code: str) -> dict[str, Any]:
        self.code = code
        ws_url = self.base_url.replace("http", "ws", 1) + f"/ws/rooms/{code}/"
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.jar)
        self.ws = await websockets.connect(
            ws_url, additional_headers={"Cookie": cookie}, origin=self.base_url,
            max_size=2**22,
        )
        return await self.wait_for(lambda m: m["type"] == "snapshot")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        message = json.loads(raw)
        self.frames.append(message)
        if message["type"] in ("snapshot", "update"):
            self.version = message["version"]
            self.last = message
        elif message["type"] == "error":
            self.errors.append(message)
        return message

    async def wait_for(self, predicate, timeout: float = 15.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"{self.name}: condition not met; last frame {self.last}")
            message = await self.recv(remaining)
            if predicate(message):
                return message

    async def command(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send a command with an id; return its ``ok`` or raise on its ``error``."""
        ident = f"c{random.getrandbits(40)}"
        await self.send({**message, "id": ident})
        reply = await self.wait_for(lambda m: m.get("id") == ident, timeout)
        if reply["type"] == "error":
            raise ProtocolError(f"{reply['code']}: {reply['message']}")
        return reply

    # ---- playing -------------------------------------------------------------

    @property
    def seat(self) -> int | None:
        return self.last["you"]["seat"] if self.last else None

    @property
    def room_status(self) -> str | None:
        return self.last["room"]["status"] if self.last else None

    def my_turn(self) -> bool:
        game = (self.last or {}).get("game")
        return bool(game and game["legal"] and game["status"] == "in_progress")

    async def play_until_over(self, bot_kind: str = "random", timeout: float = 120.0,
                              rng: random.Random | None = None) -> dict[str, Any]:
        """Play this seat with a bot until the game is over; return the last message."""
        rng = rng or random.Random(0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        bot = None
        acted_at = None  # one action per version: wait for its answer before the next
        while self.room_status != "finished":
            if loop.time() > deadline:
                raise TimeoutError(f"{self.name}: the game did not end in {timeout} s")
            if self.my_turn() and acted_at != self.version:
                acted_at = self.version
                game = self.last["game"]
                bot = bot or make_bot(self.last["room"]["game"], bot_kind)
                action = bot.choose(game["view"], game["legal"], rng)
                await self.send({"type": "action", "version": self.version, "action": action})
            message = await self.recv(deadline - loop.time())
            if message["type"] == "error":
                if message["code"] == "rate_limited":
                    await asyncio.sleep(RATE_BACKOFF)  # back off, as the server asks
                acted_at = None  # the action was refused: decide again
        return self.last


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None
