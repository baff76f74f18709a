"""Clocks that never freeze, over real daphne processes on PostgreSQL and a
private Redis that these tests stop and start (never the machine's own).

- Redis down for 10 s mid-game: the database sweep keeps firing deadlines (each
  within 2 s of due), and once Redis is back the clients, which never
  reconnected, hear the table again.
- A full restart (both processes and Redis): overdue deadlines fire within 2 s
  of the processes listening, though no request ever reaches them.
- A full restart after an outage (no process beat for two minutes, the clocks'
  pause turned on): no deadline fires; every one moves on by the outage.
- SIGKILL of a process: its players' seats count as away at most 45 s later.

Deadlines are read from the database as they are set and compared with the
time the move log says the fired command ran; "exactly once" is checked on the
same log (no gaps, no decision timed out twice).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psycopg
import pytest

from tests.integration import tables
from tests.integration.conftest import servers, shared_env
from tests.integration.tables import poll_until
from tests.servers import REPO_ROOT, free_port, python_for_servers

pytestmark = [pytest.mark.integration, pytest.mark.redis, pytest.mark.postgres,
              pytest.mark.slow]

OUTAGE_SECONDS = 10.0
DUE_WITHIN = 2.0
AWAY_WITHIN = 45.0


class DeadlineWatch(threading.Thread):
    """Reads the games' (seq, deadline) from the database every few ms and keeps
    the first deadline seen for each seq: the deadline the next command was due at."""

    def __init__(self, postgres_url: str, game_ids: list[int]) -> None:
        super().__init__(daemon=True)
        self.url, self.game_ids = postgres_url, game_ids
        self.deadlines: dict[tuple[int, int], float] = {}
        self.done = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as db:
            while not self.done.is_set():
                for game_id, seq, deadline in db.execute(
                    "SELECT id, seq, deadline FROM rooms_game WHERE id = ANY(%s)"
                    " AND status = 'in_progress' AND deadline IS NOT NULL", (self.game_ids,)
                ):
                    self.deadlines.setdefault((game_id, seq), deadline.timestamp())
                self.done.wait(0.02)  # sampling interval, not synchronisation


def lateness(watch: DeadlineWatch, logs, due_from: float, due_until: float) -> list[float]:
    """Seconds between each deadline due in [due_from, due_until] and the command
    that acted on it (the move log's first entry at that seq)."""
    written = {(g, seq): at for g, entries in logs.items() for seq, _, at in entries}
    return [written[key] - due for key, due in watch.deadlines.items()
            if due_from <= due <= due_until and key in written]


def assert_exactly_once(logs) -> None:
    for game_id, entries in logs.items():
        seqs = [seq for seq, _, _ in entries]
        assert seqs == list(range(len(seqs))), f"game {game_id}: gaps or duplicates"
        events = [event for _, event, _ in entries]
        for before, after in zip(events, events[1:], strict=False):
            assert not (before["type"] == after["type"] == "timeout"), (
                f"game {game_id}: one decision timed out twice")


def room_versions(postgres_url: str, codes: list[str]) -> dict[str, int]:
    with psycopg.connect(postgres_url) as db:
        return dict(db.execute(
            "SELECT code, version FROM rooms_room WHERE code = ANY(%s) AND status <> 'closed'",
            (codes,)).fetchall())


def make_overdue(postgres_url: str, game_ids: list[int]) -> dict[int, int]:
    """Tests only: every pending decision of these games fell due 5 s ago, as if
    while the servers were down; game id -> the seq its timeout would take."""
    with psycopg.connect(postgres_url) as db:
        return dict(db.execute(
            "UPDATE rooms_game SET deadline = now() - interval '5 seconds'"
            " WHERE id = ANY(%s) AND status = 'in_progress' RETURNING id, seq",
            (game_ids,)).fetchall())


async def idle_ludo_tables(urls: list[str], count: int):
    """``count`` Ludo tables of one human who never acts and one computer: every
    decision is fired by a deadline (the human's timeouts, then the computer
    holding the seat, at its pace), for much longer than the test lasts."""
    hosts, codes, game_ids = [], [], []
    for number in range(count):
        host = tables.signed_in(urls[number % len(urls)], f"Idle {number}")
        code = host.create_room("ludo", 2)
        await host.connect(code)
        await tables.command(host, {"type": "add_bot", "bot": "random"})
        await tables.command(host, {"type": "start"})
        started = await tables.until(host, lambda m: m["game"] is not None)
        hosts.append(host)
        codes.append(code)
        game_ids.append(started["game"]["id"])
    return hosts, codes, game_ids


async def test_deadlines_fire_through_a_redis_outage_and_broadcasts_resume(
    postgres_service, private_redis
):
    env = shared_env(postgres_service, private_redis.url,
                     KHELAGHOR_TURN_SECONDS="1", KHELAGHOR_BOT_DELAY="0.5",
                     KHELAGHOR_REDIS_PREFIX=f"kh_outage_{private_redis.port}")
    with servers(env, 2) as pair:
        hosts, codes, game_ids = await idle_ludo_tables([s.base_url for s in pair], 4)
        watch = DeadlineWatch(postgres_service, game_ids)
        watch.start()
        sockets = [host.ws for host in hosts]
        await tables.until(hosts[0], lambda m: m["version"] > 10)  # the clocks turn

        private_redis.stop()
        down_at = time.time()
        await asyncio.sleep(OUTAGE_SECONDS)  # the outage being tested, not a wait
        private_redis.start()
        up_at = time.time()

        # The clients never reconnected: the same sockets hear new versions.
        versions = room_versions(postgres_service, codes)
        for host, code in zip(hosts, codes, strict=True):
            heard = await host.wait_for(
                lambda m, v=versions[code]: m["type"] == "update" and m["version"] > v, 30)
            assert heard["room"]["code"] == code
        assert [host.ws for host in hosts] == sockets
        watch.done.set()
        watch.join(timeout=10)
        await tables.close_all(*hosts)
    logs = tables.move_logs(postgres_service, game_ids)

    late = lateness(watch, logs, down_at, up_at)
    print(f"\nRedis down {up_at - down_at:.1f} s: {len(late)} deadlines fired, "
          f"late by at most {max(late):.2f} s (mean {sum(late) / len(late):.2f} s)")
    assert len(late) >= 10, "the games went on while Redis was down"
    assert max(late) <= DUE_WITHIN
    assert_exactly_once(logs)


# ---- a full restart, and no request afterwards --------------------------------------


@contextlib.contextmanager
def daphnes_without_requests(env: dict[str, str], count: int):
    """``count`` daphne processes started together; yields the time each began
    to listen. Ready means the port accepts a TCP connection: no HTTP request
    and no socket reaches the application (tests.servers asks /healthz)."""
    started = []
    try:
        for _ in range(count):
            port = free_port()
            log_path = Path(tempfile.mkdtemp(prefix="khelaghor-daphne-")) / f"daphne-{port}.log"
            with open(log_path, "wb") as log:
                process = subprocess.Popen(
                    [python_for_servers(), "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                     "config.asgi:application"],
                    cwd=REPO_ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
                    stdout=log, stderr=subprocess.STDOUT,
                )
            started.append((port, process, log_path))
        listening: dict[int, float] = {}
        deadline = time.monotonic() + 60
        while len(listening) < count:
            for port, process, log_path in started:
                if process.poll() is not None:
                    raise RuntimeError(f"daphne exited:\n{log_path.read_text()}")
                if port not in listening:
                    with socket.socket() as probe:
                        if probe.connect_ex(("127.0.0.1", port)) == 0:
                            listening[port] = time.time()
            if time.monotonic() > deadline:
                raise RuntimeError("daphne never listened")
            time.sleep(0.02)  # polling for start-up, bounded by the deadline
        yield [listening[port] for port, _, _ in started]
    finally:
        for _, process, _ in started:
            process.terminate()
        for _, process, _ in started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


async def test_overdue_deadlines_fire_after_a_full_restart_with_no_request(
    postgres_service, private_redis
):
    env = shared_env(postgres_service, private_redis.url,
                     KHELAGHOR_TURN_SECONDS="30", KHELAGHOR_BOT_DELAY="30",
                     KHELAGHOR_REDIS_PREFIX=f"kh_restart_{private_redis.port}")
    with servers(env, 2) as pair:
        hosts, codes, game_ids = await idle_ludo_tables([s.base_url for s in pair], 3)
        await tables.close_all(*hosts)
    # Everything is down, Redis too (its timers are lost). While it is, the
    # pending decisions fall due: their deadlines move into the past.
    private_redis.stop()
    private_redis.start()
    pending = make_overdue(postgres_service, game_ids)
    assert sorted(pending) == sorted(game_ids), "no deadline fired before the restart"

    def fired_so_far():
        logs = tables.move_logs(postgres_service, game_ids)
        return {g: at for g in game_ids for seq, _, at in logs[g] if seq == pending[g]}

    with daphnes_without_requests(env, 2) as listening:
        fired = await poll_until(fired_so_far, lambda f: len(f) == len(game_ids))
    logs = tables.move_logs(postgres_service, game_ids)

    assert sorted(fired) == sorted(game_ids), "every overdue deadline fired"
    # Measured from when the restart was complete (both processes listening);
    # the first to listen may well have fired them before the other was up.
    after_first = [at - min(listening) for at in fired.values()]
    after_both = [at - max(listening) for at in fired.values()]
    print(f"\nafter a full restart, with no request: overdue deadlines fired "
          f"{min(after_first):.2f}-{max(after_first):.2f} s after the first process listened, "
          f"{min(after_both):.2f}-{max(after_both):.2f} s after both did")
    assert max(after_both) <= DUE_WITHIN
    assert all(logs[g][pending[g]][1] == {"type": "timeout", "seat": 0} for g in game_ids)
    assert_exactly_once(logs)


async def test_after_a_long_outage_the_clocks_pause_instead_of_firing(
    postgres_service, private_redis
):
    """The site's beat says no process ran for two minutes: the first process to
    start moves every pending deadline on by that gap before any can fire (the
    timers Redis kept for the old times wake early and re-arm)."""
    env = shared_env(postgres_service, private_redis.url,
                     KHELAGHOR_TURN_SECONDS="30", KHELAGHOR_BOT_DELAY="30",
                     KHELAGHOR_CLOCKS_PAUSE_AFTER="10",
                     KHELAGHOR_REDIS_PREFIX=f"kh_pause_{private_redis.port}")
    with servers(env, 2) as pair:
        hosts, codes, game_ids = await idle_ludo_tables([s.base_url for s in pair], 3)
        await tables.close_all(*hosts)
    # Down for two minutes, as far as the beat can tell, and every pending
    # decision fell due meanwhile.
    with psycopg.connect(postgres_service) as db:
        db.execute("UPDATE rooms_siteclock SET beat = now() - interval '120 seconds'")
    pending = make_overdue(postgres_service, game_ids)
    assert sorted(pending) == sorted(game_ids)

    def moved_on():
        with psycopg.connect(postgres_service) as db:
            return dict(db.execute(
                "SELECT id, extract(epoch FROM deadline - now()) FROM rooms_game"
                " WHERE id = ANY(%s) AND deadline > now() + interval '60 seconds'",
                (game_ids,)).fetchall())

    with daphnes_without_requests(env, 2):
        moved = await poll_until(moved_on, lambda m: len(m) == len(game_ids))
        logs = tables.move_logs(postgres_service, game_ids)

    assert sorted(moved) == sorted(game_ids), "every deadline moved on"
    # Overdue by 5 s when the 120 s outage ended: due in about 115 s now.
    assert all(100 < float(left) <= 115 for left in moved.values()), moved
    fired = [g for g in game_ids if pending[g] in [seq for seq, _, _ in logs[g]]]
    assert fired == [], "a deadline fired at the restart"
    assert_exactly_once(logs)


# ---- SIGKILL: presence that expires on its own ---------------------------------------


async def test_the_seats_of_a_killed_process_count_as_away_within_45_seconds(
    postgres_service, redis_service
):
    env = shared_env(postgres_service, redis_service)
    with servers(env, 2) as (doomed, survivor):
        host = tables.signed_in(survivor.base_url, "Tanvir")
        guest = tables.signed_in(doomed.base_url, "রুমি")
        code = host.create_room("ludo", 2)
        await host.connect(code)
        await guest.connect(code)
        await tables.command(guest, {"type": "join"})  # the guest's last word
        seats = tables.room_api(host, code)["room"]["seats"]
        assert seats[1]["connected"] is True

        doomed.process.send_signal(signal.SIGKILL)
        doomed.process.wait()
        killed_at = time.monotonic()
        while tables.room_api(host, code)["room"]["seats"][1]["connected"]:
            assert time.monotonic() - killed_at < AWAY_WITHIN + 15, "the seat never went away"
            # The host's page keeps talking, as a browser's does (and reads the replies).
            await tables.command(host, {"type": "ping"})
            await asyncio.sleep(0.5)  # polling the room, bounded above
        away_after = time.monotonic() - killed_at
        seats = tables.room_api(host, code)["room"]["seats"]
        await tables.close_all(host)

    print(f"\nSIGKILL: the killed process's seat was away {away_after:.1f} s later")
    assert away_after <= AWAY_WITHIN
    assert seats[0]["connected"] is True  # the survivor's player never went anywhere
    assert seats[1]["connected"] is False
