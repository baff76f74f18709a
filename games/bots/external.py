"""Computer players written by anyone, in any language: a process speaking JSON Lines.

``make_bot(game, "external:COMMAND")`` gives an ``ExternalBot``. The command
(split like a shell would, with ``shlex``) starts once, at the first decision.
For each decision the bot gets one line
``{"type": "decide", "game": ..., "seat": ..., "view": {...}, "legal": [...]}``
on its standard input and answers one line on its standard output: one of the
legal actions, exactly. See docs/bots.md.

A table must never wait on a broken program, so every answer has a deadline
(1 s). A crash, a late, malformed or illegal answer costs that decision only: a
random legal action is played instead, the reason is kept in ``failures`` and
one line goes to standard error. A process that crashed or timed out is stopped
(a late answer would be read as the answer to the next question) and started
again at the next decision, at most ``MAX_STARTS`` times in all; after that the
bot plays at random without waiting.
"""

from __future__ import annotations

import atexit
import json
import queue
import shlex
import subprocess
import sys
import threading
import time
import weakref
from typing import IO, Any

from .base import Bot

MAX_REPORTED = 10  # stderr lines per bot; the count goes on in ``failures``

_live: weakref.WeakSet[ExternalBot] = weakref.WeakSet()


def _read_lines(stream: IO[str], lines: queue.Queue) -> None:
    """Reader thread: every line the process writes, then None at the end."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(None)


def _write_lines(stream: IO[str], outgoing: queue.Queue) -> None:
    """Writer thread: a process that does not read its input cannot block the table."""
    while (line := outgoing.get()) is not None:
        try:
            stream.write(line)
            stream.flush()
        except (OSError, ValueError):
            return


class ExternalBot(Bot):
    kind = "external"
    MAX_STARTS = 3

    def __init__(self, command: str, *, timeout: float = 1.0, report: IO[str] | None = None):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("external needs a command: external:COMMAND")
        self.timeout = timeout
        self.report = report
        self.failures: list[str] = []
        self.decisions = 0
        self._starts = 0
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._outgoing: queue.Queue = queue.Queue()
        _live.add(self)

    # ---- the process -------------------------------------------------------------

    def _start(self) -> str | None:
        """Start the process unless it runs; the reason when it cannot run."""
        if self._proc is not None and self._proc.poll() is None:
            return None
        self._stop()
        if self._starts >= self.MAX_STARTS:
            return "not running (it crashed, timed out or failed to start before)"
        self._starts += 1
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                encoding="utf-8", errors="replace", bufsize=1,
            )
        except OSError as exc:
            self._starts = self.MAX_STARTS  # it will not start next time either
            return f"cannot start: {exc.strerror or exc}"
        self._lines, self._outgoing = queue.Queue(), queue.Queue()
        threading.Thread(
            target=_read_lines, args=(self._proc.stdout, self._lines), daemon=True
        ).start()
        threading.Thread(
            target=_write_lines, args=(self._proc.stdin, self._outgoing), daemon=True
        ).start()
        return None

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        self._outgoing.put(None)
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def close(self) -> None:
        """Stop the process; the bot may still be asked (it starts again)."""
        self._stop()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to report to
            pass

    # ---- deciding --------------------------------------------------------------------

    def choose(self, view, legal, rng):
        self.decisions += 1
        answer = self._ask(view, legal)
        if isinstance(answer, str):
            self._fail(answer)
            return rng.choice(legal)
        return answer

    def _ask(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any] | str:
        """The bot's legal answer, or the reason there is none."""
        problem = self._start()
        if problem:
            return problem
        seat = view.get("seat", view.get("to_move"))
        message = {"type": "decide", "game": view.get("game"), "seat": seat, "view": view,
                   "legal": legal}
        self._outgoing.put(json.dumps(message, ensure_ascii=False) + "\n")
        deadline = time.monotonic() + self.timeout
        try:
            line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self._stop()
            return f"no answer within {self.timeout:g} s"
        if line is None:
            code = self._proc.wait() if self._proc else None
            self._stop()
            return f"exited (status {code}) instead of answering"
        try:
            action = json.loads(line)
        except json.JSONDecodeError:
            return f"answered something that is not JSON: {line.strip()[:60]!r}"
        if action not in legal:
            return f"answered an action that is not legal now: {line.strip()[:60]}"
        return action

    def _fail(self, reason: str) -> None:
        self.failures.append(reason)
        if len(self.failures) <= MAX_REPORTED:
            note = " (further failures are counted, not reported)" if len(
                self.failures) == MAX_REPORTED else ""
            out = self.report or sys.stderr
            out.write(
                f"external bot {self.command!r}, decision {self.decisions}: {reason};"
                f" played a random legal action instead{note}\n"
            )


@atexit.register
def _close_all() -> None:
    for bot in list(_live):
        bot.close()
