"""Computer players written by anyone, in any language: a process speaking JSON Lines.

``make_bot(game, "external:COMMAND")`` gives an ``ExternalBot``. The command
(split like a shell would, with ``shlex``) starts at the first decision and then
plays every game of the run in that one process: ``new_game`` announces each
game (see ``games.simulate.Lineup``). For each decision the bot gets one line
``{"type": "decide", "game": ..., "seat": ..., "view": {...}, "legal": [...]}``
on its standard input and answers one line on its standard output: one of the
legal actions, exactly. See docs/bots.md.

A table must never wait on a broken program, so every answer has a deadline
(1 s); only the first answer after each start gets ``STARTUP_GRACE`` more, as
starting an interpreter can take longer than a decision. A crash, a late,
malformed or illegal answer costs that decision only: a random legal action is
played instead, the reason is kept in ``failures`` (and counted in ``counts``)
and one line goes to standard error. A process that crashed or timed out is
stopped (a late answer would be read as the answer to the next question) and
started again at the next decision: at most ``MAX_STARTS`` times per game and
``MAX_RUN_STARTS`` times in all; past either, the bot plays at random without
waiting (for the rest of that game, or of the run).
"""

from __future__ import annotations

import atexit
import json
import queue
import shlex
import subprocess
import sys
import threading
import weakref
from collections import Counter
from typing import IO, Any

from .base import Bot

MAX_REPORTED = 10  # stderr lines per bot; the count goes on in ``failures``

# Why a decision fell back to random: the keys of ``ExternalBot.counts``.
TIMEOUT, EXITED, BAD_ANSWER, NOT_RUNNING = "timeouts", "exits", "bad answers", "not asked"
FAILURE_KINDS = (TIMEOUT, EXITED, BAD_ANSWER, NOT_RUNNING)

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
    MAX_STARTS = 3  # per game
    MAX_RUN_STARTS = 10  # per bot, over the whole run
    STARTUP_GRACE = 10.0  # seconds added to the first answer after each start

    def __init__(
        self,
        command: str,
        *,
        timeout: float = 1.0,
        startup_grace: float | None = None,
        report: IO[str] | None = None,
    ):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("external needs a command: external:COMMAND")
        self.timeout = timeout
        self.startup_grace = self.STARTUP_GRACE if startup_grace is None else startup_grace
        self.report = report
        self.failures: list[str] = []
        self.counts: Counter[str] = Counter()
        self.decisions = 0
        self._starts = 0  # in all
        self._game_starts = 0  # in the current game
        self._gone: str | None = None  # why it will not be started again in this run
        self._game: dict[str, Any] | None = None  # the current game's ``new_game`` message
        self._fresh = False  # started, and not yet asked: its first answer gets the grace
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._outgoing: queue.Queue = queue.Queue()
        _live.add(self)

    @property
    def starts(self) -> int:
        return self._starts

    # ---- the process -------------------------------------------------------------

    def _running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _start(self) -> str | None:
        """Start the process unless it runs; the reason when it cannot run."""
        if self._running():
            return None
        self._stop()
        if self._gone:
            return f"not running ({self._gone})"
        if self._starts >= self.MAX_RUN_STARTS:
            self._gone = f"started {self._starts} times in this run, the most allowed"
            return f"not running ({self._gone})"
        if self._game_starts >= self.MAX_STARTS:
            return f"not running (started {self._game_starts} times in this game, the most allowed)"
        self._starts += 1
        self._game_starts += 1
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                encoding="utf-8", errors="replace", bufsize=1,
            )
        except OSError as exc:
            self._gone = "it could not be started"  # it will not start next time either
            return f"cannot start: {exc.strerror or exc}"
        self._fresh = True
        self._lines, self._outgoing = queue.Queue(), queue.Queue()
        threading.Thread(
            target=_read_lines, args=(self._proc.stdout, self._lines), daemon=True
        ).start()
        threading.Thread(
            target=_write_lines, args=(self._proc.stdin, self._outgoing), daemon=True
        ).start()
        if self._game is not None:  # a new process learns which game it is in
            self._send(self._game)
        return None

    def _send(self, message: dict[str, Any]) -> None:
        self._outgoing.put(json.dumps(message, ensure_ascii=False) + "\n")

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

    # ---- games and decisions ----------------------------------------------------------

    def new_game(
        self, *, game: str, seat: int, players: int, options: dict[str, Any] | None = None,
        number: int = 0,
    ) -> None:
        """A game begins: the process (kept from the last game) is told, without answering.

        A process that is not running is not started for this: it starts at the
        bot's first decision, and hears of the game then."""
        self._game = {"type": "new_game", "game": game, "seat": seat, "players": players,
                      "options": options or {}, "number": number}
        self._game_starts = 0
        if self._running():
            self._send(self._game)

    def choose(self, view, legal, rng):
        self.decisions += 1
        answer = self._ask(view, legal)
        if isinstance(answer, tuple):
            self._fail(*answer)
            return rng.choice(legal)
        return answer

    def _ask(
        self, view: dict[str, Any], legal: list[dict[str, Any]]
    ) -> dict[str, Any] | tuple[str, str]:
        """The bot's legal answer, or (the kind of failure, the reason) when there is none."""
        problem = self._start()
        if problem:
            return NOT_RUNNING, problem
        self._discard_unasked()
        seat = view.get("seat", view.get("to_move"))
        self._send({"type": "decide", "game": view.get("game"), "seat": seat, "view": view,
                    "legal": legal})
        limit = self.timeout + (self.startup_grace if self._fresh else 0.0)
        grace = f" (+{self.startup_grace:g} s to start)" if self._fresh else ""
        self._fresh = False
        try:
            line = self._lines.get(timeout=limit)
        except queue.Empty:
            self._stop()
            return TIMEOUT, f"no answer within {self.timeout:g} s{grace}"
        if line is None:
            code = self._proc.wait() if self._proc else None
            self._stop()
            return EXITED, f"exited (status {code}) instead of answering"
        try:
            action = json.loads(line)
        except json.JSONDecodeError:
            return BAD_ANSWER, f"answered something that is not JSON: {line.strip()[:60]!r}"
        if action not in legal:
            return BAD_ANSWER, f"answered an action that is not legal now: {line.strip()[:60]}"
        return action

    def _discard_unasked(self) -> None:
        """Lines written when not asked (an answer to ``new_game``, say) are not answers:
        left in the queue they would be read as the answer to this question."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:  # the end of its output: always the last line
                self._lines.put(None)
                return

    def _fail(self, kind: str, reason: str) -> None:
        self.failures.append(reason)
        self.counts[kind] += 1
        if len(self.failures) <= MAX_REPORTED:
            note = " (further failures are counted, not reported)" if len(
                self.failures) == MAX_REPORTED else ""
            game = f", game {self._game['number'] + 1}" if self._game else ""
            out = self.report or sys.stderr
            out.write(
                f"external bot {self.command!r}{game}, decision {self.decisions}: {reason};"
                f" played a random legal action instead{note}\n"
            )

    # ---- the run's account -----------------------------------------------------------

    def stats(self) -> dict[str, int]:
        """Starts, decisions and every fallback to random by its cause (sums over workers)."""
        return {"starts": self._starts, "decisions": self.decisions,
                **{kind: self.counts[kind] for kind in FAILURE_KINDS},
                "random": len(self.failures)}


def describe_stats(stats: dict[str, int]) -> str:
    """One line of ``ExternalBot.stats`` (summed or not) for the end of a run."""
    def n(count: int, word: str) -> str:
        return f"{count} {word if count != 1 else word.removesuffix('s')}"

    failures = ", ".join(n(stats.get(kind, 0), kind) for kind in FAILURE_KINDS)
    return (f"{n(stats.get('starts', 0), 'starts')}, {n(stats.get('decisions', 0), 'decisions')};"
            f" {failures}; {stats.get('random', 0)} played at random instead")


@atexit.register
def _close_all() -> None:
    for bot in list(_live):
        bot.close()
