"""For the probes: the commands psycopg sends on its own (BEGIN, COMMIT,
ROLLBACK, ...), as opposed to the statements the code executes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg


@contextmanager
def commands_psycopg_sends() -> Iterator[list[str]]:
    """The first word of each command psycopg sends by itself inside the block."""
    sent: list[str] = []
    original = psycopg.Connection._exec_command

    def counting(self, command, *args, **kwargs):
        sent.append(bytes(command).decode().split()[0])
        return original(self, command, *args, **kwargs)

    psycopg.Connection._exec_command = counting
    try:
        yield sent
    finally:
        psycopg.Connection._exec_command = original
