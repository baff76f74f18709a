"""Presence marks from this process's sockets, written together.

Every message from a seated page renews its seat's ``last_seen``
(rooms.consumers, at most every SEEN_EVERY seconds per connection). One
UPDATE per mark, each in the queue of the command threads, let a burst of
pings delay the moves behind them by hundreds of milliseconds: the pages of a
restarted server reconnect together and from then on ping together every 25 s
(docs/performance.md, "Pings together"). So the marks of one event loop are
written by one writer: the first mark starts a write at once, marks that
arrive while it runs wait for the next, which takes them all in one statement.
A page's mark is written before its message is answered (a pong means the
seat is marked), as before.

A write that fails (a seat row held by a command past rows.SEEN_LOCK_TIMEOUT,
the database away) is logged and tried once more with the next write; the
messages that waited for it are answered all the same, because presence is
renewed again by the next ping and a page must not lose its socket over it.
"""

from __future__ import annotations

import asyncio
import logging
import weakref

from . import services

log = logging.getLogger(__name__)


class SeenWriter:
    """The marks of one event loop and the write that carries them."""

    def __init__(self, write) -> None:
        self._write = write  # async: a list of (room code, session key) -> None
        self._waiting: dict[tuple[str, str], list[asyncio.Future]] = {}
        self._retry: set[tuple[str, str]] = set()
        self._writing: asyncio.Task | None = None

    async def mark(self, code: str, session_key: str) -> None:
        """Mark the seats of ``session_key`` in room ``code`` seen; returns
        once a write that carries the mark has ended."""
        await self.enqueue(code, session_key)

    def enqueue(self, code: str, session_key: str) -> asyncio.Future:
        """``mark`` without waiting: the future is done when a write that
        carries the mark has ended."""
        done = asyncio.get_running_loop().create_future()
        self._waiting.setdefault((code, session_key), []).append(done)
        if self._writing is None or self._writing.done():
            self._writing = asyncio.ensure_future(self._write_all())
        return done

    async def _write_all(self) -> None:
        while self._waiting:
            waiting, self._waiting = self._waiting, {}
            retry, self._retry = self._retry, set()
            pairs = sorted(set(waiting) | retry)
            try:
                await self._write(pairs)
            except Exception as exc:  # noqa: BLE001 - presence is renewed by the next ping
                log.warning("could not write %d presence marks (%s)", len(pairs), exc)
                self._retry = set(waiting)  # once more with the next write, not forever
            for futures in waiting.values():
                for done in futures:
                    if not done.done():
                        done.set_result(None)


_writers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def writer(database_sync_to_async) -> SeenWriter:
    """This event loop's writer (a task belongs to its loop), whose writes run
    through ``database_sync_to_async`` (the consumers' command threads)."""
    loop = asyncio.get_running_loop()
    found = _writers.get(loop)
    if found is None:
        found = _writers[loop] = SeenWriter(database_sync_to_async(services.seats_seen))
    return found
