"""A pipelined Redis connection for the event loop's own few commands.

A room socket records an action claim (``rooms.timers``) on the event loop,
before its command waits for a database thread: one ``SET`` per move, and a
``DEL`` when the move is refused. Through redis-py's asyncio client that
``SET`` was 7.5 % of a server's CPU under load (docs/performance.md, round 8):
a pool checkout behind an ``asyncio.Condition``, a retry wrapper, a timeout
context and a reply parser built for every kind of reply, about 190 µs of CPU
a command, for a command whose reply is one line.

``RedisLine`` keeps one connection per event loop and pipelines every command
on it: a command is written at once, and replies come back in the order the
commands were written, so each resolves the oldest waiting future. It speaks
only the simple replies (``+OK``, ``:1``, ``-ERR``), which is all that ``SET``,
``DEL``, ``AUTH``, ``SELECT``, ``PUBLISH`` and the timers' scripts answer; any
other reply closes the connection. Since round 10 a move's deadline is armed
here too (``RedisTimers.schedule_async``); since round 13 the timers' claims
are made here, and a room's broadcasts published on a line of their own
(``rooms.publish``).
A reply that does not come within ``timeout`` fails every command waiting on
the connection and closes it (a reply after that would answer the wrong
command); a closed connection fails what waits on it, and the next command
opens a new one. Callers treat a failure as "Redis is away" and go on.
"""

from __future__ import annotations

import asyncio
import collections
import ssl
import weakref

from redis.connection import SSLConnection, parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


def encode(*args: bytes | str | int | float) -> bytes:
    """One command in RESP, Redis's request format: an array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class _Pipeline(asyncio.Protocol):
    """One connection: commands written as they come, replies matched in order."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self.loop = loop
        self.timeout = timeout
        self.transport: asyncio.Transport | None = None
        # (future, time written) of every command not answered yet, oldest first.
        self.waiting: collections.deque[tuple[asyncio.Future, float]] = collections.deque()
        self.unread = b""
        self.closed = False
        self.watch: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc) -> None:
        self._fail(RedisConnectionError(f"Redis closed the connection ({exc or 'EOF'})"))

    def data_received(self, data: bytes) -> None:
        unread = self.unread + data
        start = 0
        while True:
            end = unread.find(b"\r\n", start)
            if end < 0:
                break
            kind, line = unread[start:start + 1], unread[start + 1:end]
            start = end + 2
            if not self.waiting or kind not in (b"+", b":", b"-"):
                self.close(RedisConnectionError(f"Unexpected reply from Redis: {kind + line!r}"))
                return
            future, _ = self.waiting.popleft()
            if future.done():  # its caller was cancelled; the reply is still its own
                continue
            if kind == b"-":
                future.set_exception(ResponseError(line.decode(errors="replace")))
            else:
                future.set_result(line)
        self.unread = unread[start:]

    def send(self, command: bytes) -> asyncio.Future:
        if self.closed:
            raise RedisConnectionError("the connection to Redis is closed")
        future = self.loop.create_future()
        now = self.loop.time()
        self.waiting.append((future, now))
        self.transport.write(command)
        if self.watch is None:
            self.watch = self.loop.call_at(now + self.timeout, self._check_oldest)
        return future

    def _check_oldest(self) -> None:
        """The watchdog: one timer for the whole connection, set for the
        oldest unanswered command, instead of one timeout per command."""
        self.watch = None
        if not self.waiting:
            return
        written = self.waiting[0][1]
        if self.loop.time() - written >= self.timeout:
            self.close(RedisTimeoutError(f"Redis did not answer within {self.timeout} s"))
        else:
            self.watch = self.loop.call_at(written + self.timeout, self._check_oldest)

    def close(self, exc: Exception) -> None:
        self._fail(exc)
        if self.transport is not None:
            self.transport.abort()

    def _fail(self, exc: Exception) -> None:
        self.closed = True
        if self.watch is not None:
            self.watch.cancel()
            self.watch = None
        while self.waiting:
            future, _ = self.waiting.popleft()
            if not future.done():
                future.set_exception(exc)


class RedisLine:
    """Commands on one pipelined connection to the Redis at ``url``, for one
    event loop (a connection belongs to the loop that opened it)."""

    def __init__(self, url: str, timeout: float = 1.0, connect_timeout: float = 1.0) -> None:
        self.address = parse_url(url)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._pipeline: _Pipeline | None = None
        self._connecting: asyncio.Future | None = None

    async def execute(self, *args: bytes | str | int | float) -> bytes:
        """Send one command; its reply's line (``b"OK"``, ``b"1"``), or the
        reply's error as ``ResponseError``; ``ConnectionError`` or
        ``TimeoutError`` (redis-py's) when Redis cannot be reached in time.
        Only for commands that may be sent twice: one whose connection closes
        before its reply is sent again on a new connection."""
        command = encode(*args)
        pipeline = self._pipeline
        if pipeline is None or pipeline.closed:
            return await (await self._connect()).send(command)
        try:
            return await pipeline.send(command)
        except RedisConnectionError:
            # The kept connection had gone (Redis restarted, or dropped it while
            # it sat idle): once more, on a new one. SET, DEL and the arming
            # script sent twice do what they do once; a claim sent twice leaves
            # what the first took to come back after its lease, and a PUBLISH
            # sent twice is an update its clients already have (the callers say
            # so where they send them).
            return await (await self._connect()).send(command)

    async def run_script(self, sha: str, script: str, *keys_and_args) -> bytes:
        """A Lua script by its SHA (``EVALSHA``); sent whole (``EVAL``) when
        Redis does not know it (it restarted, or flushed its scripts)."""
        try:
            return await self.execute("EVALSHA", sha, *keys_and_args)
        except ResponseError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
            return await self.execute("EVAL", script, *keys_and_args)

    async def _connect(self) -> _Pipeline:
        # Commands that find no connection wait for the one being opened.
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
            self._connecting.add_done_callback(self._opened)
        return await asyncio.shield(self._connecting)

    def _opened(self, connecting: asyncio.Future) -> None:
        self._connecting = None
        if not connecting.cancelled() and connecting.exception() is None:
            self._pipeline = connecting.result()

    async def _open(self) -> _Pipeline:
        loop = asyncio.get_running_loop()
        address = self.address
        make = lambda: _Pipeline(loop, self.timeout)  # noqa: E731
        try:
            async with asyncio.timeout(self.connect_timeout):
                if "path" in address:
                    _, pipeline = await loop.create_unix_connection(make, address["path"])
                else:
                    secure = address.get("connection_class") is SSLConnection  # rediss://
                    _, pipeline = await loop.create_connection(
                        make, address.get("host", "localhost"), address.get("port", 6379),
                        ssl=ssl.create_default_context() if secure else None,
                    )
        except TimeoutError as exc:
            raise RedisTimeoutError("Redis did not accept a connection in time") from exc
        except OSError as exc:
            raise RedisConnectionError(f"cannot connect to Redis: {exc}") from exc
        # The connection's set-up goes first in the pipeline: a command sent
        # after it is read by Redis after it.
        greeting = []
        if address.get("password") is not None:
            credentials = [address["username"]] if address.get("username") else []
            greeting.append(pipeline.send(encode("AUTH", *credentials, address["password"])))
        if address.get("db"):
            greeting.append(pipeline.send(encode("SELECT", address["db"])))
        try:
            for reply in greeting:
                await reply
        except Exception:
            pipeline.close(RedisConnectionError("Redis refused the connection's set-up"))
            raise
        return pipeline


# Lines by event loop, then by (address, timeout): a connection belongs to the
# loop that opened it.
_lines: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def line_for(url: str, timeout: float = 1.0) -> RedisLine:
    """This event loop's line to the Redis at ``url`` with ``timeout``, made once."""
    lines = _lines.setdefault(asyncio.get_running_loop(), {})
    line = lines.get((url, timeout))
    if line is None:
        line = lines[url, timeout] = RedisLine(url, timeout=timeout)
    return line
