#!/usr/bin/env python3
"""Load benchmark: K tables of N real WebSocket players against real daphne
processes on PostgreSQL + Redis, then the same load against a bare Channels
broadcast (bench/bare_asgi.py), the floor.

Every active table acts once every 2 s (a Snakes roll by whoever's turn it is;
all seats are humans, so computers add no load). Prints, for the product and
the floor: latency from an action to the LAST seat receiving its update
(p50/p95/p99), actions per second, daphne CPU per action (utime+stime from
/proc), PostgreSQL + Redis CPU per action, daphne RSS per connected player,
errors and dropped messages (version gaps), and the product/floor ratios.
Idle tables (humans who never act) measure timeout lateness: the deadline shown
to the players vs the arrival of the timeout's update.

    .venv/bin/python bench/bench_load.py              # 500 tables, 4 seats, 30 s
    .venv/bin/python bench/bench_load.py --quick      # 50 tables, 20 s
    .venv/bin/python bench/bench_load.py --sweep 150,300,450 --duration 20   # capacity
    .venv/bin/python bench/bench_load.py --tables 200 --duration 20 --repeat 5  # the ratio, 5 times
    KHELAGHOR_BENCH_QUICK=1 make bench

Uses the database KHELAGHOR_BENCH_DATABASE_URL (default .../khelaghor_bench,
created if missing) and Redis KHELAGHOR_BENCH_REDIS_URL (default db 14), so it
never touches the tests' data. Without PostgreSQL or Redis it says why and
exits 0. Rooms it opened are closed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

PG_URL = os.environ.get("KHELAGHOR_BENCH_DATABASE_URL",
                        "postgres://postgres@127.0.0.1:5432/khelaghor_bench")
REDIS_URL = os.environ.get("KHELAGHOR_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
ACTION_EVERY = 2.0  # seconds between two actions of one table
TURN_SECONDS = 5.0  # > ACTION_EVERY, so only the idle tables time out
# Measuring starts after this: hundreds of tables start at once, and the first
# deadlines of tables whose first action comes late are not the steady state.
WARM_UP = 8.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---- services and servers --------------------------------------------------------


def services_missing() -> str | None:
    try:
        import psycopg
        import redis
    except ImportError as exc:
        return f"missing Python package: {exc.name}"
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at {REDIS_URL} does not answer: {exc}"
    base, _, name = PG_URL.rpartition("/")
    try:
        with psycopg.connect(f"{base}/postgres", connect_timeout=3, autocommit=True) as db:
            if not db.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                db.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        return f"PostgreSQL at {base} does not answer: {exc}"
    return None


def prepare_database() -> None:
    """This process talks to the servers' database and Redis: the same settings,
    the schema migrated, and no timers left over from an earlier run."""
    os.environ.update({k: v for k, v in server_env().items()
                       if k.startswith(("DATABASE", "REDIS", "DJANGO", "KHELAGHOR"))})
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=REPO,
                   env=server_env(), check=True, capture_output=True)
    import django

    django.setup()
    forget_timers()


def forget_timers() -> None:
    """No deadlines left in the bench's Redis from an earlier run or level."""
    import redis

    redis.Redis.from_url(REDIS_URL).delete(
        "khelaghor:timers:due", "khelaghor:timers:processing", "khelaghor:timers:payload")


def clear_database() -> None:
    """Before a level's rooms are made: the rooms, games, moves and sessions of
    earlier levels and runs deleted, and the timers with them, in a database
    named ``khelaghor_bench...`` (the benches' own; any other is left as it is).

    A level's cost must not depend on how many came before it. On a machine
    whose PostgreSQL runs without autovacuum (this kind of machine's does),
    five runs of one level in a row made the product's daphne CPU per update
    rise by a quarter (3.14 to 3.89 ms) while the floor's did not, and the
    same code measured 1.1-1.4x the floor on a new database and 1.8-2.1x on
    one that earlier runs had grown to 97 MB (docs/performance.md, round 16)."""
    import psycopg
    from django.contrib.sessions.models import Session

    from rooms.models import Room

    if not PG_URL.rpartition("/")[2].startswith("khelaghor_bench"):
        return
    with psycopg.connect(PG_URL, autocommit=True) as db:
        db.execute(f'TRUNCATE "{Room._meta.db_table}", "{Session._meta.db_table}" CASCADE')
    forget_timers()


def vacuum_database() -> None:
    """``VACUUM (ANALYZE)`` the bench's database once a level's rooms are made
    and before its servers start: every move rewrites its room's and its
    game's rows, and a PostgreSQL with autovacuum on (its default, and what
    docs/deploy.md asks for) clears the dead versions within about a minute;
    one without it (this kind of machine's) keeps them all."""
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(PG_URL, autocommit=True) as db:
        autovacuum = db.execute("SHOW autovacuum").fetchone()[0]
        db.execute("VACUUM (ANALYZE)")
    print(f"   vacuumed the database in {time.perf_counter() - started:.1f}s "
          f"(its server's autovacuum: {autovacuum})", flush=True)


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": PG_URL, "REDIS_URL": REDIS_URL,
        # Production-like: no DEBUG (which keeps every query), a real secret.
        "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "bench-load-not-secret",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
        "KHELAGHOR_BOT_DELAY": "3600",  # a held seat never plays: no computer load
        "KHELAGHOR_TURN_SECONDS": str(TURN_SECONDS),
        "PYTHONUNBUFFERED": "1",
        **(extra or {}),
    }


# "seat": a table's seats on the servers in turn (every move crosses
# processes); "room": every socket of a table on one server, as a proxy that
# routes by the room's address does (docs/deploy.md). The floor alike.
ROUTE = "seat"


def server_of(table: int, seat: int, servers: int) -> int:
    """Which server a table's seat connects to, by ROUTE."""
    return (table if ROUTE == "room" else table + seat) % servers


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    port: int
    process: subprocess.Popen
    log: Path

    def application_errors(self) -> int:
        """How many exceptions escaped the application (a consumer that
        crashed), as daphne logs them: a server should log none for anything a
        client does, hanging up included."""
        with open(self.log, "rb") as handle:
            return sum(b"Exception inside application" in line for line in handle)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_servers(count: int, app: str, env: dict[str, str]) -> list[Server]:
    python = str(REPO / ".venv" / "bin" / "python")
    python = python if Path(python).exists() else sys.executable
    out = []
    for _ in range(count):
        port = free_port()
        log = Path(tempfile.mkstemp(prefix=f"bench-daphne-{port}-", suffix=".log")[1])
        with open(log, "wb") as handle:
            process = subprocess.Popen(
                [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app],
                cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT,
            )
        out.append(Server(port, process, log))
    deadline = time.monotonic() + 60
    for server in out:
        wait_healthy(server.port, server.process, server.log, deadline)
    return out


def wait_healthy(port: int, process: subprocess.Popen, log: Path, deadline: float,
                 request_timeout: float = 5, interval: float = 0.2) -> None:
    """Until the daphne on ``port`` answers /healthz; its log's tail if it exits
    or ``deadline`` (time.monotonic) passes first."""
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz",
                                        timeout=request_timeout) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"daphne not healthy:\n{log.read_text()[-3000:]}")
        time.sleep(interval)  # polling for start-up, bounded by the deadline


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


def other_cpu() -> dict[str, float]:
    """CPU seconds so far of this load generator and of the whole machine
    (every process: the servers, PostgreSQL, Redis, the generator)."""
    own = os.times()
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, idle, iowait, irq, softirq = (int(x) for x in fields[:7])
    busy = (user + nice + system + irq + softirq) / CLK_TCK
    return {"load generator": own.user + own.system, "whole machine": busy}


def rss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


# ---- measurements ------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    lateness: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    dropped: int = 0
    frames: int = 0
    frame_bytes: int = 0
    sent: int = 0
    skipped: int = 0  # a table's previous action had not reached every seat yet
    unexpected_timeouts: int = 0
    undelivered: int = 0  # actions not seen by every seat 10 s after the run
    closed: int = 0
    measuring: bool = True  # timeouts after the window (sockets closing) are not counted

    def reset(self) -> None:
        """Forget the warm-up (the tables' pending actions carry on)."""
        self.latencies.clear()
        self.lateness.clear()
        self.errors.clear()
        self.dropped = self.skipped = self.unexpected_timeouts = 0


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Player:
    def __init__(self, table: Table, seat: int, ws, stats: Stats) -> None:
        self.table, self.seat, self.ws, self.stats = table, seat, ws, stats
        self.version: int | None = None
        self.last: dict | None = None
        self.deadline: float | None = None

    async def read(self, product: bool) -> None:
        import websockets

        try:
            async for raw in self.ws:
                arrived, wall = time.perf_counter(), time.time()
                self.stats.frames += 1
                self.stats.frame_bytes += len(raw)
                message = json.loads(raw)
                kind = message["type"]
                if kind == "error":
                    self.stats.errors[message["code"]] += 1
                    continue
                if kind not in ("snapshot", "update"):
                    continue
                version = message["version"]
                if kind == "update" and self.version is not None:
                    if version <= self.version:
                        continue  # an echo of what this player has
                    # Counted until the run ends, not while the sockets hang up:
                    # each close is a presence update to the table's other
                    # seats, and closes handled by two processes at once may
                    # reach them out of order (as bench_mixed.py counts).
                    if version > self.version + 1 and self.stats.measuring:
                        self.stats.dropped += version - self.version - 1
                self.version = version
                if product:
                    self.last = message
                    self.on_product_message(message, wall)
                self.table.delivered(self.seat, version, arrived)
        except websockets.ConnectionClosed:
            self.stats.closed += 1

    def on_product_message(self, message: dict, wall: float) -> None:
        events = message.get("events") or []
        if any(e["type"] == "timeout" for e in events) and self.seat == 0 and self.stats.measuring:
            if self.table.idle and self.deadline is not None:
                self.stats.lateness.append(wall - self.deadline)
            elif not self.table.idle:
                self.stats.unexpected_timeouts += 1
        turn = (message.get("game") or {}).get("turn")
        self.deadline = turn["deadline"] if turn else None


class Table:
    def __init__(self, number: int, seats: int, idle: bool = False) -> None:
        self.number, self.seats, self.idle = number, seats, idle
        self.players: list[Player] = []
        self.pending: tuple[int, float, set[int]] | None = None
        self.stats: Stats | None = None

    def delivered(self, seat: int, version: int, arrived: float) -> None:
        if self.pending and version >= self.pending[0]:
            self.pending[2].discard(seat)
            if not self.pending[2]:
                self.stats.latencies.append(arrived - self.pending[1])
                self.pending = None


async def drive(table: Table, stats: Stats, until: float, product: bool, size: int) -> None:
    """One action every ACTION_EVERY seconds, from the seat whose turn it is."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(random.uniform(0, ACTION_EVERY))  # spread the tables' phases
    tick = loop.time()
    while loop.time() < until:
        if table.pending is not None:
            stats.skipped += 1
        elif product:
            host = table.players[0].last
            if host["room"]["status"] == "finished":
                message, player = {"type": "rematch"}, table.players[0]
            else:
                player = table.players[host["game"]["turn"]["seat"]]
                message = {"type": "action", "version": player.version,
                           "action": {"type": "roll"}}
            table.pending = (player.version + 1, time.perf_counter(), set(range(table.seats)))
            await player.ws.send(json.dumps(message))
            stats.sent += 1
        else:
            player = table.players[0]
            table.pending = (player.version + 1, time.perf_counter(), set(range(table.seats)))
            await player.ws.send(json.dumps(
                {"version": player.version, "size": size, "seats": table.seats}))
            stats.sent += 1
        tick += ACTION_EVERY
        await asyncio.sleep(max(0.0, tick - loop.time()))


@contextmanager
def no_long_collections_here():
    """This process (the load generator) without collections of its oldest
    generation: everything made so far is frozen out of collections and the
    oldest generation is not collected until the block ends; the younger
    ones still are. Timed with ``gc.callbacks`` at 190 mixed tables, the
    generator's own oldest-generation collections took 150-250 ms, several
    times a window, and every latency it was measuring then was counted as
    the server's (docs/performance.md, round 12). For the product and the
    floor alike; nested (the two side by side, bench_mixed.py --together), the
    outermost block decides."""
    global _quiet_depth
    _quiet_depth += 1
    if _quiet_depth == 1:
        gc.collect()
        gc.freeze()
        _quiet_thresholds[:] = gc.get_threshold()
        gc.set_threshold(_quiet_thresholds[0], _quiet_thresholds[1], 10**9)
    try:
        yield
    finally:
        _quiet_depth -= 1
        if _quiet_depth == 0:
            gc.set_threshold(*_quiet_thresholds)
            gc.unfreeze()


_quiet_depth = 0
_quiet_thresholds: list[int] = []


async def measure(tables, stats: Stats, pids: list[int], duration: float, *, product: bool,
                  size: int) -> dict:
    """Drive every table for WARM_UP + ``duration`` seconds and measure the
    last ``duration``: the window's stats, elapsed time and CPU."""
    loop = asyncio.get_running_loop()
    with no_long_collections_here():
        until = loop.time() + WARM_UP + duration
        driving = asyncio.gather(*(drive(t, stats, until, product, size) for t in tables))
        await asyncio.sleep(WARM_UP)  # the window's start (a duration, not a synchronisation)
        stats.reset()
        cpu0, others0, t0 = cpu_seconds(pids), other_cpu(), time.perf_counter()
        await driving
        await wait_until(lambda: all(t.pending is None for t in tables), 10, "last actions",
                         False)
        stats.undelivered = sum(t.pending is not None for t in tables)
        elapsed = time.perf_counter() - t0
        cpu1, others1 = cpu_seconds(pids), other_cpu()
        stats.measuring = False
    return {"stats": stats, "elapsed": elapsed, "duration": duration, "cpu": cpu1 - cpu0,
            "others": {k: others1[k] - others0[k] for k in others1}}


async def hang_up(sockets, readers) -> None:
    for ws in sockets:
        await ws.close()
    for task in readers:
        task.cancel()


# ---- the product run -----------------------------------------------------------------


def open_rooms(tables: int, seats: int) -> list[tuple[str, list[str]]]:
    """Rooms with every seat a human guest, made with the services (setup is not
    what is measured): [(code, [session key per seat])]."""
    from django.contrib.sessions.backends.db import SessionStore

    from rooms import services

    out = []
    for t in range(tables):
        keys = []
        for s in range(seats):
            session = SessionStore()
            session["nickname"] = f"Player {t} {s}"
            session.create()
            keys.append(session.session_key)
        host = services.Actor(keys[0], f"Player {t} 0")
        room = services.room_create(actor=host, game="snakes", seats=seats)
        for s in range(1, seats):
            services.seat_join(room.code, services.Actor(keys[s], f"Player {t} {s}"))
        out.append((room.code, keys))
    return out


def close_rooms(codes: list[str]) -> None:
    from rooms import services
    from rooms.models import Room

    for room_id in Room.objects.filter(code__in=codes).exclude(status="closed").values_list(
        "id", flat=True
    ):
        services.room_close(room_id, reason="The load benchmark is over")


async def connect_all(urls_and_headers, stats: Stats, concurrency: int = 40):
    import websockets

    gate = asyncio.Semaphore(concurrency)

    async def one(url, headers, origin):
        async with gate:
            # On a machine shared with other work a handshake can outlast daphne's
            # 5 s limit for the application to accept; try again rather than fail the run.
            for attempt in range(3):
                try:
                    return await websockets.connect(
                        url, additional_headers=headers, origin=origin, max_size=2**22,
                        open_timeout=60, ping_interval=None)
                except websockets.exceptions.InvalidMessage:
                    if attempt == 2:
                        raise
                    await asyncio.sleep(1.0)  # a back-off before the next attempt

    return await asyncio.gather(*(one(*item) for item in urls_and_headers))


async def wait_until(predicate, timeout: float, what: str, fatal: bool = True) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            if fatal:
                raise TimeoutError(what)
            return False
        await asyncio.sleep(0.05)  # polling a condition with a deadline
    return True


async def run_product(servers: list[Server], rooms, idle_rooms, seats: int, duration: float,
                      measuring: asyncio.Event | None = None):
    """The product's run; ``measuring`` is set as its warm-up starts (the
    floor beside it starts its own then: ``--together``)."""
    stats = Stats()
    pids = [s.process.pid for s in servers]
    tables = [Table(i, seats) for i in range(len(rooms))]
    idle = [Table(len(rooms) + i, seats, idle=True) for i in range(len(idle_rooms))]
    rss_before = rss_kb(pids)
    items, players = [], []
    for table, (code, keys) in zip(tables + idle, rooms + idle_rooms, strict=True):
        table.stats = stats
        for seat, key in enumerate(keys):
            server = servers[server_of(table.number, seat, len(servers))]
            base = f"127.0.0.1:{server.port}"
            items.append((f"ws://{base}/ws/rooms/{code}/", {"Cookie": f"sessionid={key}"},
                          f"http://{base}"))
            players.append((table, seat))
    started = time.perf_counter()
    sockets = await connect_all(items, stats)
    connect_time = time.perf_counter() - started
    print(f"   {len(sockets)} sockets open in {connect_time:.1f}s", flush=True)
    readers = []
    for (table, seat), ws in zip(players, sockets, strict=True):
        player = Player(table, seat, ws, stats)
        table.players.append(player)
        readers.append(asyncio.create_task(player.read(product=True)))
    everyone = [p for t in tables + idle for p in t.players]
    await wait_until(lambda: all(p.last for p in everyone), 60, "snapshots")
    for table in tables + idle:
        await table.players[0].ws.send(json.dumps({"type": "start"}))
    await wait_until(lambda: all(p.last["room"]["status"] == "playing" for p in everyone),
                     120, "every table started")
    rss_after = rss_kb(pids)
    stats.latencies.clear()
    stats.dropped = 0
    frames_before, bytes_before = stats.frames, stats.frame_bytes
    if measuring is not None:
        measuring.set()
    window = await measure(tables, stats, pids, duration, product=True, size=0)
    await hang_up(sockets, readers)
    updates = stats.frames - frames_before
    return {
        **window, "connect": connect_time,
        "rss_per_player_kb": (rss_after - rss_before) / len(everyone),
        "rss_total_mb": rss_after / 1024, "players": len(everyone),
        "frame_size": (stats.frame_bytes - bytes_before) / max(1, updates),
    }


async def run_bare(servers: list[Server], tables_n: int, seats: int, duration: float,
                   size: int, start: asyncio.Event | None = None):
    """The floor's run: connect, then (once ``start`` is set, when given: the
    product's window beside it, bench_mixed.py --together) drive and measure."""
    stats = Stats()
    pids = [s.process.pid for s in servers]
    tables = [Table(i, seats) for i in range(tables_n)]
    rss_before = rss_kb(pids)
    items, players = [], []
    for table in tables:
        table.stats = stats
        for seat in range(seats):
            server = servers[server_of(table.number, seat, len(servers))]
            base = f"127.0.0.1:{server.port}"
            items.append((f"ws://{base}/ws/bare/{table.number}/{seat}/", {}, f"http://{base}"))
            players.append((table, seat))
    sockets = await connect_all(items, stats)
    readers = []
    for (table, seat), ws in zip(players, sockets, strict=True):
        player = Player(table, seat, ws, stats)
        player.version = 0
        table.players.append(player)
        readers.append(asyncio.create_task(player.read(product=False)))
    rss_after = rss_kb(pids)
    if start is not None:
        await start.wait()
    window = await measure(tables, stats, pids, duration, product=False, size=size)
    await hang_up(sockets, readers)
    return {
        **window,
        "rss_per_player_kb": (rss_after - rss_before) / (tables_n * seats),
        "players": tables_n * seats,
    }


def report(name: str, result: dict) -> dict:
    stats: Stats = result["stats"]
    done = len(stats.latencies)
    figures = {
        "p50": pct(stats.latencies, 50) * 1000, "p95": pct(stats.latencies, 95) * 1000,
        "p99": pct(stats.latencies, 99) * 1000,
        "rate": done / result["duration"],
        "cpu_ms": 1000 * result["cpu"] / max(1, done),
        "rss_kb": result["rss_per_player_kb"],
    }
    print(f"{name}: {done} actions in {result['duration']:.0f}s = {figures['rate']:.1f}/s; "
          f"latency to the last seat p50 {figures['p50']:.1f} ms, p95 {figures['p95']:.1f} ms, "
          f"p99 {figures['p99']:.1f} ms")
    print(f"   daphne CPU {figures['cpu_ms']:.2f} ms/action "
          f"({100 * result['cpu'] / result['elapsed']:.0f}% of one core); "
          f"RSS {figures['rss_kb']:.1f} KB per connected player ({result['players']} players)")
    shares = ", ".join(f"{name} {100 * seconds / result['elapsed']:.0f}%"
                       for name, seconds in result["others"].items())
    print(f"   CPU in the window (% of one core; the machine has {os.cpu_count()}): {shares}")
    print(f"   errors {dict(stats.errors) or 0}, dropped (version gaps) {stats.dropped}, "
          f"sockets closed {stats.closed}, actions skipped (previous not delivered yet) "
          f"{stats.skipped}, undelivered 10 s after the end {stats.undelivered}")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--processes", type=int, default=2, help="daphne processes")
    parser.add_argument("--idle-tables", type=int, default=20,
                        help="tables whose humans never act (timeout lateness)")
    parser.add_argument("--conn-max-age", default=os.environ.get("DJANGO_CONN_MAX_AGE", "60"),
                        help="DJANGO_CONN_MAX_AGE of the servers (the default is 60)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each level this many times (product, then floor, each "
                        "time) and print every CPU ratio and their median")
    parser.add_argument("--sweep", default="",
                        help="comma-separated table counts: run the product and the floor at "
                             "each and report the most tables each holds (capacity)")
    parser.add_argument("--together", action="store_true",
                        help="the product and the floor at once, each on its own servers, in "
                             "the same measured window (each level --repeat times; no capacity)")
    parser.add_argument("--quick", action="store_true",
                        default=os.environ.get("KHELAGHOR_BENCH_QUICK", "") not in ("", "0"),
                        help="50 tables for 20 s (also KHELAGHOR_BENCH_QUICK=1)")
    parser.add_argument("--route", choices=["seat", "room"], default="seat",
                        help="a table's seats on the servers in turn (default), or a room's "
                             "sockets all on one server, as a proxy routing by room does")
    args = parser.parse_args()
    global ROUTE
    ROUTE = args.route
    if args.quick:
        args.tables, args.duration, args.idle_tables = min(args.tables, 50), 20.0, 10
    missing = services_missing()
    if missing:
        print(f"bench_load: skipped, {missing}")
        return 0

    prepare_database()
    levels = [int(n) for n in args.sweep.split(",") if n.strip()] or [args.tables]
    print(f"machine: {os.cpu_count()} CPUs, {_meminfo()}, load average "
          f"{Path('/proc/loadavg').read_text().split()[0]} before the run; {args.processes} "
          f"daphne processes; {', '.join(map(str, levels))} tables x {args.seats} seats, one "
          f"action per table every {ACTION_EVERY:g} s, {args.duration:g} s; "
          f"{args.idle_tables} idle tables (turn {TURN_SECONDS:g} s); "
          f"DJANGO_CONN_MAX_AGE={args.conn_max_age}; sockets routed by {ROUTE}", flush=True)
    held = {"khelaghor": [], "floor": []}
    for tables in levels:
        if len(levels) > 1:
            print(f"== {tables} tables", flush=True)
        if args.together:  # the ratio only: capacity is for the runs alone
            print(repeated_ratio(together(args, tables), tables)
                  .replace("runs", "side-by-side runs", 1), flush=True)
            continue
        ratios, held_every_run = [], {"khelaghor": True, "floor": True}
        for run in range(args.repeat):
            if args.repeat > 1:
                print(f"-- run {run + 1} of {args.repeat}", flush=True)
            ours, floor, ok = run_level(args, tables)
            ratios.append(ours["cpu_ms"] / floor["cpu_ms"])
            for name, holds in ok.items():
                held_every_run[name] = held_every_run[name] and holds
        for name, holds in held_every_run.items():
            if holds:  # a level is held only if every run of it held
                held[name].append(tables)
        if args.repeat > 1:
            print(repeated_ratio(ratios, tables), flush=True)
    if len(levels) > 1 and not args.together:
        for name in held:
            best = max(held[name], default=None)
            print(f"capacity ({name}): "
                  + (f"{best} tables" if best else "none of the levels")
                  + " with p99 <= 100 ms, 0 errors, 0 drops and the rate sustained "
                  f"(levels held: {', '.join(map(str, held[name])) or 'none'})")
    return 0


def repeated_ratio(ratios: list[float], tables: int) -> str:
    """The CPU ratio of every run of a level, and their median. The product
    and its floor run about a minute apart, and a shared machine's speed moves
    by as much as a change is worth in that time (docs/performance.md, round
    8): one run's ratio says little, the middle of several says more."""
    median = statistics.median(ratios)
    runs = ", ".join(f"{ratio:.2f}x" for ratio in ratios)
    return (f"ratio khelaghor / floor over {len(ratios)} runs at {tables} tables: {runs}; "
            f"median {median:.2f}x, {sum(r <= 1.5 for r in ratios)} of {len(ratios)} <= 1.5x")


def holds(figures: dict, stats, tables: int) -> bool:
    """A load the server holds: p99 to the last seat <= 100 ms, every action
    delivered at the rate sent, no errors, no version gaps."""
    return (figures["p99"] <= 100 and not stats.errors and not stats.dropped
            and not stats.undelivered and figures["rate"] >= 0.95 * tables / ACTION_EVERY)


def open_level(args, tables: int):
    """A level's rooms (``tables`` acting, ``args.idle_tables`` idle) on an
    emptied, vacuumed bench database, and the product's servers started."""
    started = time.perf_counter()
    clear_database()
    rooms = open_rooms(tables, args.seats)
    idle_rooms = open_rooms(args.idle_tables, args.seats)
    print(f"   setup: {len(rooms) + len(idle_rooms)} rooms in "
          f"{time.perf_counter() - started:.1f}s", flush=True)
    vacuum_database()
    servers = start_servers(args.processes, "config.asgi:application",
                            server_env({"DJANGO_CONN_MAX_AGE": str(args.conn_max_age)}))
    return rooms, idle_rooms, servers


async def side_by_side(product, floor):
    """``product(event)`` and ``floor(event)`` (coroutine functions) at once:
    the product sets the event as its warm-up starts, and the floor, connected
    by then, starts its own; both results. Should the product fail, the floor
    is cancelled with it."""
    warming = asyncio.Event()
    floor_run = asyncio.create_task(floor(warming))
    try:
        result = await product(warming)
    except BaseException:
        floor_run.cancel()
        raise
    return result, await floor_run


def run_level(args, tables: int) -> tuple[dict, dict, dict[str, bool]]:
    """The product, then the floor, at ``tables`` tables; both reported."""
    rooms, idle_rooms, servers = open_level(args, tables)
    codes = [code for code, _ in rooms + idle_rooms]
    try:
        product = asyncio.run(run_product(servers, rooms, idle_rooms, args.seats,
                                          args.duration))
    finally:
        for server in servers:
            server.stop()
        close_rooms(codes)
    print(f"   {product['players']} players connected in {product['connect']:.1f}s; "
          f"mean update frame {product['frame_size']:.0f} bytes", flush=True)
    ours = report("khelaghor", product)
    lateness = product["stats"].lateness
    if lateness:
        print(f"   timeouts: {len(lateness)} fired; lateness after the deadline "
              f"p50 {pct(lateness, 50) * 1000:.0f} ms, p99 {pct(lateness, 99) * 1000:.0f} ms, "
              f"max {max(lateness) * 1000:.0f} ms; unexpected timeouts at active tables "
              f"{product['stats'].unexpected_timeouts}")

    bare_env = server_env({"DJANGO_SETTINGS_MODULE": "bench.bare_settings"})
    servers = start_servers(args.processes, "bench.bare_asgi:application", bare_env)
    try:
        bare = asyncio.run(run_bare(servers, tables, args.seats, args.duration,
                                    int(product["frame_size"])))
    finally:
        for server in servers:
            server.stop()
    floor = report("bare broadcast (floor)", bare)
    print(f"ratio khelaghor / floor: daphne CPU per action {ours['cpu_ms'] / floor['cpu_ms']:.1f}x,"
          f" p99 {ours['p99'] / floor['p99']:.1f}x, RSS per player "
          f"{ours['rss_kb'] / max(0.1, floor['rss_kb']):.1f}x")
    targets = [
        ("p99 <= 100 ms", ours["p99"] <= 100),
        ("no errors, no drops", not product["stats"].errors and not product["stats"].dropped
         and not product["stats"].undelivered),
        ("CPU per action <= 1.5x floor", ours["cpu_ms"] <= 1.5 * floor["cpu_ms"]),
        ("<= 70 KB per player", ours["rss_kb"] <= 70),
        ("timeouts p99 <= 250 ms late", bool(lateness) and pct(lateness, 99) <= 0.25),
        ("sustained rate", ours["rate"] >= 0.95 * tables / ACTION_EVERY),
    ]
    print("targets: " + ", ".join(f"{name}: {'met' if ok else 'NOT met'}"
                                  for name, ok in targets), flush=True)
    return ours, floor, {"khelaghor": holds(ours, product["stats"], tables),
                         "floor": holds(floor, bare["stats"], tables)}


# The floor's frames beside the product (``--together``) before the product
# has said its own: a Snakes update as the sweeps of 2026-12-04 measured it.
SNAKES_FRAME_BYTES = 1745


def together(args, tables: int) -> list[float]:
    """``--together``: the level ``args.repeat`` times side by side; the
    ratios. Each run's floor goes at the frame size of the product's run before."""
    ratios, size = [], SNAKES_FRAME_BYTES
    for run in range(args.repeat):
        if args.repeat > 1:
            print(f"-- run {run + 1} of {args.repeat}", flush=True)
        ratio, product = run_level_together(args, tables, size)
        ratios.append(ratio)
        size = int(product["frame_size"])
    return ratios


def run_level_together(args, tables: int, size: int) -> tuple[float, dict]:
    """The product and the floor at once, each on its own servers, their
    measured windows started together (bench_mixed.py's ``--together`` says
    why): the ratio of their CPU per action, and the product's figures."""
    rooms, idle_rooms, servers = open_level(args, tables)
    bare_servers = start_servers(args.processes, "bench.bare_asgi:application",
                                 server_env({"DJANGO_SETTINGS_MODULE": "bench.bare_settings"}))
    try:
        product, bare = asyncio.run(side_by_side(
            lambda warming: run_product(servers, rooms, idle_rooms, args.seats, args.duration,
                                        warming),
            lambda warming: run_bare(bare_servers, tables, args.seats, args.duration, size,
                                     warming)))
    finally:
        for server in servers + bare_servers:
            server.stop()
        close_rooms([code for code, _ in rooms + idle_rooms])
    ours = report("khelaghor", product)
    floor = report(f"bare broadcast (floor) beside it, frames of {size} bytes", bare)
    ratio = ours["cpu_ms"] / floor["cpu_ms"]
    print(f"ratio khelaghor / floor, side by side: daphne CPU per action {ratio:.2f}x "
          f"(the product's frames {product['frame_size']:.0f} bytes)", flush=True)
    return ratio, product


def _meminfo() -> str:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return f"{int(line.split()[1]) // 1024} MB RAM"
    return "RAM unknown"


if __name__ == "__main__":
    sys.exit(main())
