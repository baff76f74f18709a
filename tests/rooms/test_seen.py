"""The presence writer (rooms.seen): marks that arrive while a write runs go
together into the next one, each mark is answered once a write carrying it
has ended, and a failed write neither reaches the pages nor is retried
forever. The write itself is a stand-in here; the real one runs on
PostgreSQL in tests/integration/test_presence_writes.py."""

from __future__ import annotations

import asyncio

from rooms.seen import SeenWriter


class GatedWrite:
    """Records each write's pairs; each write waits until the test opens its
    gate, and the writes numbered in ``failing`` (from 1) then fail."""

    def __init__(self, failing: set[int] = frozenset()) -> None:
        self.writes: list[list[tuple[str, str]]] = []
        self.gates: list[asyncio.Event] = []
        self.started = asyncio.Event()
        self.failing = failing

    async def __call__(self, pairs):
        self.writes.append(pairs)
        number = len(self.writes)
        gate = asyncio.Event()
        self.gates.append(gate)
        self.started.set()
        await gate.wait()
        if number in self.failing:
            raise OSError("the database is away")

    async def started_write(self, number: int) -> None:
        while len(self.writes) < number:
            self.started.clear()
            await self.started.wait()


async def test_marks_made_during_a_write_go_together_into_the_next():
    write = GatedWrite()
    writer = SeenWriter(write)
    first = writer.enqueue("ABCD", "s1")
    await write.started_write(1)
    during = [writer.enqueue(code, key) for code, key in [("WXYZ", "s2"), ("ABCD", "s3"),
                                                          ("WXYZ", "s2")]]
    assert write.writes == [[("ABCD", "s1")]]
    assert not first.done()

    write.gates[0].set()
    await first
    await write.started_write(2)
    assert write.writes[1] == [("ABCD", "s3"), ("WXYZ", "s2")]  # once each, in order
    assert not any(mark.done() for mark in during)  # answered when their write ends
    write.gates[1].set()
    await asyncio.gather(*during)
    assert len(write.writes) == 2


async def test_a_failed_write_answers_its_marks_and_is_tried_once_more_not_forever():
    write = GatedWrite(failing={1, 2})
    writer = SeenWriter(write)
    first = writer.enqueue("ABCD", "s1")
    await write.started_write(1)
    write.gates[0].set()
    await first  # answered, not raised: the next ping renews presence anyway

    second = writer.enqueue("WXYZ", "s2")
    await write.started_write(2)
    assert write.writes[1] == [("ABCD", "s1"), ("WXYZ", "s2")]  # s1 once more
    write.gates[1].set()
    await second

    third = writer.enqueue("WXYZ", "s9")
    await write.started_write(3)
    assert write.writes[2] == [("WXYZ", "s2"), ("WXYZ", "s9")]  # s1 not a third time
    write.gates[2].set()
    await third
