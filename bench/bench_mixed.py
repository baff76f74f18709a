#!/usr/bin/env python3
"""A realistic mixed load, beside bench_load.py's Snakes rolls: Liar's Dice
(hidden dice, a view per seat), Ludo (square, four seats; hexagon, six),
Snakes & Ladders; humans who think before they act, computer players at their
normal pace (1 s), pings every 25 s, spectators who come and go, rematches.

For each number of tables it reports, per game and overall: actions per
second, latency from a human's action to the LAST human of the table seeing
it (p50/p99), errors, timeouts at tables whose players were all acting (the
goal is 0), timeout lateness (idle Snakes tables whose humans never act), and
daphne CPU per action (every update a table sends counts: humans', computers',
timeouts) against the bare broadcast floor (bench/bare_asgi.py) at the same
rate, frame size and seats in the same run.

Then a capacity sweep: tables 50, 75, 112, ... until p99 > 100 ms or errors;
the last level that held is the sustainable load, and a run at 2.5x it shows
what happens past capacity.

    .venv/bin/python bench/bench_mixed.py                 # sweep from 50 tables, 20 s each
    .venv/bin/python bench/bench_mixed.py --tables 100    # one level, then the floor
    .venv/bin/python bench/bench_mixed.py --tables 400 --repeat 5   # the ratio, 5 times
    .venv/bin/python bench/bench_mixed.py --quick         # sweep from 10 tables, 12 s each
    KHELAGHOR_BENCH_QUICK=1 make bench

Same database, Redis and exit rules as bench_load.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import bench_load as base

REPO = base.REPO
THINK = (0.8, 3.0)  # seconds a human looks at the table before acting
TURN_SECONDS = 10.0  # every turn, so a lagging server meets real deadlines
PING_EVERY = 25.0
PINGS_TOGETHER = False  # --pings together
REMATCH_AFTER = 1.0
# game, seats, computer seats (the rest are humans who act)
MIX = [("liars_dice", 4, 1), ("ludo", 4, 1), ("snakes", 4, 1), ("ludo", 6, 2)]
IDLE_EVERY = 10  # one idle Snakes table (humans who never act) per this many tables
SPECTATOR_EVERY = 3  # one spectator per this many tables


def label(game: str, seats: int) -> str:
    return "ludo_hex" if game == "ludo" and seats > 4 else game


class Figures:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, Counter] = defaultdict(Counter)
        self.timeouts: Counter = Counter()  # at tables whose humans act
        self.updates: Counter = Counter()  # versions each table moved through
        self.sent: Counter = Counter()
        self.lateness: list[float] = []
        self.dropped = 0
        self.frames = 0
        self.frame_bytes = 0
        self.closed = 0
        self.reconnects = 0
        self.measuring = False

    def reset(self) -> None:
        self.__init__()
        self.measuring = True


class Seat:
    def __init__(self, table: MixedTable, seat: int | None, key: str, human: bool) -> None:
        self.table, self.seat, self.key, self.human = table, seat, key, human
        self.ws = None
        self.version: int | None = None
        self.last: dict | None = None
        self.acted_at: int | None = None
        self.rng = random.Random(f"{table.number}:{seat}")
        self.bot = None

    async def read(self) -> None:
        import websockets

        figures = self.table.figures
        try:
            async for raw in self.ws:
                arrived, wall = time.perf_counter(), time.time()
                message = json.loads(raw)
                kind = message["type"]
                if kind == "error":
                    if figures.measuring:
                        figures.errors[self.table.label][message["code"]] += 1
                    continue
                if kind not in ("snapshot", "update"):
                    continue
                version = message["version"]
                if kind == "update" and figures.measuring:
                    figures.frames += 1
                    figures.frame_bytes += len(raw)
                if kind == "update" and self.version is not None:
                    if version <= self.version:
                        continue
                    if version > self.version + 1 and figures.measuring:
                        figures.dropped += version - self.version - 1
                self.version, self.last = version, message
                self.table.seen(self, message, version, arrived, wall, kind)
        except websockets.ConnectionClosed:
            figures.closed += 1

    def my_turn(self) -> bool:
        game = (self.last or {}).get("game") or {}
        turn = game.get("turn") or {}
        return (self.last["room"]["status"] == "playing" and turn.get("seat") == self.seat
                and bool(game.get("legal")))


class MixedTable:
    def __init__(self, number: int, game: str, seats: int, keys: list[str | None],
                 figures: Figures, idle: bool = False) -> None:
        self.number, self.game, self.seats, self.idle = number, game, seats, idle
        self.label = "idle_snakes" if idle else label(game, seats)
        self.figures = figures
        self.players = [Seat(self, i, key, True) for i, key in enumerate(keys) if key]
        self.pending: tuple[int, float, set[int]] | None = None
        self.deadline: float | None = None
        self.running = True
        self.tasks: list[asyncio.Task] = []

    @property
    def host(self) -> Seat:
        return self.players[0]

    def seen(self, player: Seat, message: dict, version: int, arrived: float, wall: float,
             kind: str) -> None:
        figures = self.figures
        if self.pending and version >= self.pending[0]:
            self.pending[2].discard(player.seat)
            if not self.pending[2]:
                if figures.measuring:
                    figures.latencies[self.label].append(arrived - self.pending[1])
                self.pending = None
        if player is self.host:
            if kind == "update" and figures.measuring:
                figures.updates[self.label] += 1
            events = message.get("events") or []
            if any(e["type"] == "timeout" for e in events) and figures.measuring:
                if self.idle and self.deadline is not None:
                    figures.lateness.append(wall - self.deadline)
                elif not self.idle:
                    figures.timeouts[self.label] += 1
            turn = (message.get("game") or {}).get("turn")
            self.deadline = turn["deadline"] if turn else None
            if message["room"]["status"] == "finished" and self.running:
                self.tasks.append(asyncio.ensure_future(self.rematch(version)))
        if not self.idle and player.human and player.my_turn() and player.acted_at != version:
            player.acted_at = version
            self.tasks.append(asyncio.ensure_future(self.act(player, version)))

    async def act(self, player: Seat, version: int) -> None:
        from games.bots import make_bot

        await asyncio.sleep(player.rng.uniform(*THINK))  # a human thinking (pacing only)
        if not self.running or player.version != version:
            return
        game = player.last["game"]
        player.bot = player.bot or make_bot(self.game, "random")
        action = player.bot.choose(game["view"], game["legal"], player.rng)
        humans = {p.seat for p in self.players}
        self.pending = (version + 1, time.perf_counter(), humans)
        self.figures.sent[self.label] += 1
        await player.ws.send(json.dumps({"type": "action", "version": version,
                                         "action": action}))

    async def rematch(self, version: int) -> None:
        await asyncio.sleep(REMATCH_AFTER)  # pacing only
        if self.running and self.host.version == version:
            await self.host.ws.send(json.dumps({"type": "rematch"}))


def open_mixed(tables: int, first: int) -> list[tuple]:
    """Rooms made with the services (setup is not what is measured):
    [(code, game, seats, [session key or None per seat], idle)]."""
    from django.contrib.sessions.backends.db import SessionStore

    from rooms import services

    def guest(name: str) -> str:
        session = SessionStore()
        session["nickname"] = name
        session.create()
        return session.session_key

    out = []
    for t in range(first, first + tables):
        idle = t % IDLE_EVERY == IDLE_EVERY - 1
        game, seats, bots = ("snakes", 2, 0) if idle else MIX[t % len(MIX)]
        keys = [guest(f"P{t} {s}") for s in range(seats - bots)]
        room = services.room_create(actor=services.Actor(keys[0], f"P{t} 0"), game=game,
                                    seats=seats)
        for s in range(1, seats - bots):
            services.seat_join(room.code, services.Actor(keys[s], f"P{t} {s}"))
        for _ in range(bots):
            services.bot_add(room.code, services.Actor(keys[0], f"P{t} 0"))
        out.append((room.code, game, seats, keys + [None] * bots, idle))
    return out


def spectator_keys(count: int) -> list[str]:
    from django.contrib.sessions.backends.db import SessionStore

    keys = []
    for i in range(count):
        session = SessionStore()
        session["nickname"] = f"Watcher {i}"
        session.create()
        keys.append(session.session_key)
    return keys


async def connect(server: base.Server, code: str, key: str):
    """A room socket; an overloaded server may drop a handshake, and a page
    tries again (at most five times here)."""
    import websockets

    origin = f"http://127.0.0.1:{server.port}"
    for attempt in range(5):
        try:
            return await websockets.connect(
                f"ws://127.0.0.1:{server.port}/ws/rooms/{code}/",
                additional_headers={"Cookie": f"sessionid={key}"}, origin=origin,
                max_size=2**22, open_timeout=60, ping_interval=None)
        except (OSError, websockets.InvalidHandshake, websockets.InvalidMessage):
            if attempt == 4:
                raise
            await asyncio.sleep(1 + attempt)  # a page's back-off before it tries again
    raise AssertionError("unreachable")


async def pinger(sockets_of, until: float) -> None:
    """Every socket pings every 25 s, each at its own phase, as pages that
    opened at different times do. (All at one phase is the minute after a
    server restart, when every page reconnects at once: ``--pings together``.)"""
    loop = asyncio.get_running_loop()
    phases: dict[int, float] = {}
    start = loop.time()
    while loop.time() < until:
        due = []
        for ws in sockets_of():
            own = 0.0 if PINGS_TOGETHER else random.uniform(0, PING_EVERY)
            due.append((phases.setdefault(id(ws), own), ws))
        due.sort(key=lambda item: item[0])
        for phase, ws in due:
            wait = start + phase - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                await ws.send('{"type":"ping"}')
            except Exception:  # noqa: BLE001 - a closed socket pings no more
                pass
        start += PING_EVERY
        await asyncio.sleep(max(0.0, start - loop.time()))


async def spectate(server, code: str, key: str, until: float, figures: Figures) -> None:
    """A spectator who watches, leaves and comes back (a reconnect with a snapshot)."""
    loop = asyncio.get_running_loop()
    rng = random.Random(code)
    while loop.time() < until:
        try:
            ws = await connect(server, code, key)
        except Exception:  # noqa: BLE001 - an overloaded server: watch again later
            await asyncio.sleep(5)
            continue
        try:
            stay = rng.uniform(5, 15)
            end = min(until, loop.time() + stay)
            while loop.time() < end:
                try:
                    await asyncio.wait_for(ws.recv(), max(0.01, end - loop.time()))
                except TimeoutError:
                    break
        finally:
            await ws.close()
        if figures.measuring:
            figures.reconnects += 1


async def run_level(servers: list[base.Server], rooms: list[tuple], watchers: list[str],
                    duration: float, warming: asyncio.Event | None = None) -> dict:
    """The product's run; ``warming`` is set as its warm-up starts (the floor
    beside it starts its own then: ``--together``)."""
    figures = Figures()
    pids = [s.process.pid for s in servers]
    tables = [MixedTable(i, game, seats, keys, figures, idle)
              for i, (code, game, seats, keys, idle) in enumerate(rooms)]
    codes = [code for code, *_ in rooms]
    rss_before = base.rss_kb(pids)
    gate = asyncio.Semaphore(40)

    async def open_seat(table: MixedTable, player: Seat, code: str) -> None:
        async with gate:
            server = servers[base.server_of(table.number, player.seat or 0, len(servers))]
            player.ws = await connect(server, code, player.key)

    started = time.perf_counter()
    await asyncio.gather(*(open_seat(t, p, code) for t, code in zip(tables, codes, strict=True)
                           for p in t.players))
    readers = [asyncio.create_task(p.read()) for t in tables for p in t.players]
    everyone = [p for t in tables for p in t.players]
    await base.wait_until(lambda: all(p.last for p in everyone), 60, "snapshots")
    connect_time = time.perf_counter() - started
    for table in tables:
        await table.host.ws.send(json.dumps({"type": "start"}))
    await base.wait_until(lambda: all(p.last["room"]["status"] != "lobby" for p in everyone),
                          120, "every table started")
    rss_after = base.rss_kb(pids)
    with base.no_long_collections_here():
        loop = asyncio.get_running_loop()
        until = loop.time() + base.WARM_UP + duration
        def watched(i: int) -> int:
            return i * SPECTATOR_EVERY % len(codes)

        side = [asyncio.create_task(spectate(
                    servers[base.server_of(watched(i), 0, len(servers))
                            if base.ROUTE == "room" else i % len(servers)],
                    codes[watched(i)], key, until, figures))
                for i, key in enumerate(watchers)]
        side.append(asyncio.create_task(pinger(lambda: [p.ws for p in everyone], until)))
        if warming is not None:
            warming.set()
        await asyncio.sleep(base.WARM_UP)  # the window's start (a duration, not a synchronisation)
        figures.reset()
        cpu0, others0, t0 = base.cpu_seconds(pids), base.other_cpu(), time.perf_counter()
        await asyncio.sleep(max(0.0, until - loop.time()))  # the measured window
        figures.measuring = False
        elapsed = time.perf_counter() - t0
        cpu1, others1 = base.cpu_seconds(pids), base.other_cpu()
        undelivered = sum(t.pending is not None and not t.idle for t in tables)
        for table in tables:
            table.running = False
        for task in side:
            task.cancel()
        await asyncio.gather(*side, return_exceptions=True)
        for player in everyone:
            await player.ws.close()
        for task in readers + [t for table in tables for t in table.tasks]:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        return {"figures": figures, "elapsed": elapsed, "cpu": cpu1 - cpu0,
                "others": {k: others1[k] - others0[k] for k in others1},
                "players": len(everyone), "spectators": len(watchers), "connect": connect_time,
                "rss_per_player_kb": (rss_after - rss_before) / max(1, len(everyone)),
                "undelivered": undelivered, "tables": len(tables)}


def summarise(result: dict) -> dict:
    f: Figures = result["figures"]
    elapsed = result["elapsed"]
    everything = [x for values in f.latencies.values() for x in values]
    updates = sum(f.updates.values())
    sent = sum(f.sent.values())
    errors = sum(sum(c.values()) for c in f.errors.values())
    return {
        "tables": result["tables"], "actions_s": sent / elapsed, "updates_s": updates / elapsed,
        "p50": base.pct(everything, 50) * 1000, "p99": base.pct(everything, 99) * 1000,
        "cpu_ms": 1000 * result["cpu"] / max(1, updates), "cpu_share": result["cpu"] / elapsed,
        "errors": errors, "error_rate": errors / max(1, sent),
        "timeouts": sum(f.timeouts.values()),
        "late_p99": base.pct(f.lateness, 99) * 1000 if f.lateness else float("nan"),
        "rss_kb": result["rss_per_player_kb"], "dropped": f.dropped,
        "frame_size": f.frame_bytes / max(1, f.frames),
    }


def print_level(name: str, result: dict) -> dict:
    f: Figures = result["figures"]
    s = summarise(result)
    print(f"{name}: {result['tables']} tables, {result['players']} players + "
          f"{result['spectators']} spectators; human actions {s['actions_s']:.1f}/s, "
          f"updates {s['updates_s']:.1f}/s; to the last human p50 {s['p50']:.0f} ms, "
          f"p99 {s['p99']:.0f} ms", flush=True)
    print(f"   daphne CPU {s['cpu_ms']:.2f} ms per update ({100 * s['cpu_share']:.0f}% of one "
          f"core); RSS {s['rss_kb']:.0f} KB per player; errors {s['errors']} "
          f"({100 * s['error_rate']:.2f}% of actions); timeouts at acting tables "
          f"{s['timeouts']}; timeout lateness p99 {s['late_p99']:.0f} ms "
          f"({len(f.lateness)} idle timeouts); dropped {s['dropped']}; spectator "
          f"reconnects {f.reconnects}; undelivered at the end {result['undelivered']}; "
          f"consumers crashed {result.get('crashes', 0)}")
    shares = ", ".join(f"{k} {100 * v / result['elapsed']:.0f}%"
                       for k, v in result["others"].items())
    print(f"   CPU in the window (% of one core): {shares}")
    for game in sorted(set(f.sent) | set(f.updates)):
        lat = f.latencies.get(game, [])
        print(f"   {game:>12}: {f.sent[game] / result['elapsed']:5.1f} actions/s, "
              f"{f.updates[game] / result['elapsed']:5.1f} updates/s, p50 "
              f"{base.pct(lat, 50) * 1000:5.0f} ms, p99 {base.pct(lat, 99) * 1000:5.0f} ms, "
              f"errors {dict(f.errors.get(game, {})) or 0}, timeouts {f.timeouts[game]}")
    return s


def level(tables: int, duration: float, processes: int, first: int,
          beside: tuple[float, int] | None = None) -> tuple[dict, dict | None]:
    """One level of the product, and with ``beside`` ((rate, frame size)) the
    floor at once on its own servers at that rate and size, their measured
    windows the same seconds (``--together``): both results (the floor's None
    without ``beside``)."""
    base.clear_database()
    rooms = open_mixed(tables, first)
    watchers = spectator_keys(max(1, tables // SPECTATOR_EVERY))
    base.vacuum_database()
    servers = base.start_servers(processes, "config.asgi:application", server_env())
    bare_servers = []
    if beside is not None:
        rate, size = beside
        base.ACTION_EVERY = max(0.05, tables / max(0.1, rate))
        bare_servers = base.start_servers(
            processes, "bench.bare_asgi:application",
            server_env({"DJANGO_SETTINGS_MODULE": "bench.bare_settings"}))
    try:
        if beside is None:
            result, bare = asyncio.run(run_level(servers, rooms, watchers, duration)), None
        else:
            result, bare = asyncio.run(base.side_by_side(
                lambda warming: run_level(servers, rooms, watchers, duration, warming),
                lambda warming: base.run_bare(bare_servers, tables, 4, duration, size,
                                              warming)))
    finally:
        for server in servers + bare_servers:
            server.stop()
        base.close_rooms([code for code, *_ in rooms])
    result["crashes"] = sum(server.application_errors() for server in servers)
    return result, bare


def floor(tables: int, rate: float, duration: float, processes: int, size: int) -> dict:
    """The bare broadcast at the product's update rate: four seats a table.
    Tried twice: on a saturated machine daphne may drop a handshake, and the
    floor's connect does not retry."""
    import websockets

    base.ACTION_EVERY = max(0.05, tables / max(0.1, rate))
    env = server_env({"DJANGO_SETTINGS_MODULE": "bench.bare_settings"})
    for attempt in range(2):
        servers = base.start_servers(processes, "bench.bare_asgi:application", env)
        try:
            return asyncio.run(base.run_bare(servers, tables, 4, duration, size))
        except (OSError, websockets.InvalidHandshake, websockets.InvalidMessage) as exc:
            if attempt == 1:
                raise
            print(f"   the floor's run failed to connect ({exc}); once more", flush=True)
        finally:
            for server in servers:
                server.stop()
    raise AssertionError("unreachable")


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return base.server_env({"KHELAGHOR_BOT_DELAY": "1.0",
                            "KHELAGHOR_TURN_SECONDS": str(TURN_SECONDS), **(extra or {})})


def floor_beside(tables: int, s: dict, args) -> float:
    """Run the floor at the product's update rate and frame size, print it,
    and return the ratio of their CPU per update."""
    bare = floor(tables, s["updates_s"], args.duration, args.processes, int(s["frame_size"]))
    return print_floor("floor (bare broadcast)", s, bare)


def print_floor(heading: str, s: dict, bare: dict, size: int | None = None) -> float:
    """Print the floor's run beside the product's summary ``s``; the ratio of
    their CPU per update."""
    done = len(bare["stats"].latencies)
    floor_cpu = 1000 * bare["cpu"] / max(1, done)
    ratio = s["cpu_ms"] / max(0.01, floor_cpu)
    frames = "" if size is None else f" of {size} bytes"
    product_frames = "" if size is None else f" (the product's frames {s['frame_size']:.0f} bytes)"
    print(f"{heading} at {done / bare['duration']:.0f} broadcasts/s{frames}: "
          f"{floor_cpu:.2f} ms CPU each ({100 * bare['cpu'] / bare['elapsed']:.0f}% of one "
          f"core), p99 {base.pct(bare['stats'].latencies, 99) * 1000:.0f} ms, errors "
          f"{dict(bare['stats'].errors) or 0}; khelaghor / floor CPU per update "
          f"{ratio:.2f}x{product_frames}", flush=True)
    return ratio


def repeated(args) -> int:
    """``--tables N --repeat R``: the level and its floor R times, fresh rooms
    each time, then every ratio and their median (bench_load.repeated_ratio:
    one run's ratio moves with the machine's speed between its two phases)."""
    ratios, first = [], 0
    for run in range(args.repeat):
        print(f"-- run {run + 1} of {args.repeat}", flush=True)
        result, _ = level(args.tables, args.duration, args.processes, first)
        first += args.tables
        s = print_level("khelaghor", result)
        ratios.append(floor_beside(args.tables, s, args))
    print(base.repeated_ratio(ratios, args.tables), flush=True)
    return 0


# The floor's first run beside the product (``--together``) goes at these, the
# mixed load's figures on the machines measured (docs/performance.md); every
# later run at the product's own rate and frame size of the run before.
UPDATES_PER_TABLE_S = 0.56
FRAME_BYTES = 2240


def level_side_by_side(tables: int, duration: float, processes: int, first: int,
                       rate: float, size: int) -> tuple[dict, float]:
    """``level`` with the floor beside it, printed: the product's summary and
    the ratio of their CPU per update in the same window."""
    result, bare = level(tables, duration, processes, first, beside=(rate, size))
    s = print_level("khelaghor", result)
    return s, print_floor("floor beside it", s, bare, size)


def together(args) -> int:
    """``--together``: the product and the floor at once, on their own servers,
    their measured windows started together, R times; each one's CPU per update
    from its own processes in the same seconds. Run one after the other, the
    two phases of a run are a minute apart, and this kind of machine's speed
    moved by up to 50 % between them (the floor alone 1.59-2.42 ms per update
    in five runs of 2026-12-04): the ratio of a run then says more about the
    minute than about the code. Side by side, both meet the same machine; the
    cost is that each runs on a machine the other loads too (p99 and the
    machine's share are printed, but capacity is the solo runs' to say)."""
    ratios, first = [], 0
    rate, size = UPDATES_PER_TABLE_S * args.tables, FRAME_BYTES
    for run in range(args.repeat):
        print(f"-- run {run + 1} of {args.repeat}, the floor side by side", flush=True)
        s, ratio = level_side_by_side(args.tables, args.duration, args.processes, first,
                                      rate, size)
        first += args.tables
        ratios.append(ratio)
        rate, size = s["updates_s"], int(s["frame_size"])
    print(base.repeated_ratio(ratios, args.tables).replace("runs", "side-by-side runs", 1),
          flush=True)
    return 0


def main() -> int:
    global TURN_SECONDS, PINGS_TOGETHER
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=0,
                        help="one level of this many tables (default: the sweep)")
    parser.add_argument("--start", type=int, default=50, help="the sweep's first level")
    parser.add_argument("--max-tables", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--processes", type=int, default=2, help="daphne processes")
    parser.add_argument("--turn-seconds", type=float, default=TURN_SECONDS,
                        help="every turn's time (humans think 0.8-3 s)")
    parser.add_argument("--pings", choices=["spread", "together"], default="spread",
                        help="each socket's pings at its own phase (default), or all at once "
                             "as after a server restart")
    parser.add_argument("--route", choices=["seat", "room"], default="seat",
                        help="a table's seats on the servers in turn (default), or a room's "
                             "sockets all on one server, as a proxy routing by room does")
    parser.add_argument("--past", type=float, default=2.5,
                        help="after the sweep, a run at this multiple of the sustainable load")
    parser.add_argument("--repeat", type=int, default=1,
                        help="with --tables: run the level this many times (product, then "
                             "floor, each time) and print every CPU ratio and their median")
    parser.add_argument("--together", action="store_true",
                        help="with --tables: the product and the floor at once, each on its "
                             "own servers, in the same measured window (--repeat times)")
    parser.add_argument("--quick", action="store_true",
                        default=os.environ.get("KHELAGHOR_BENCH_QUICK", "") not in ("", "0"),
                        help="sweep from 10 tables, 12 s each, at most 3 levels")
    args = parser.parse_args()
    TURN_SECONDS = args.turn_seconds
    PINGS_TOGETHER = args.pings == "together"
    base.ROUTE = args.route
    if args.quick:
        args.start, args.duration = 10, 12.0
        args.max_tables = min(args.max_tables, 25)
    missing = base.services_missing()
    if missing:
        print(f"bench_mixed: skipped, {missing}")
        return 0
    base.prepare_database()
    print(f"machine: {os.cpu_count()} CPUs, {base._meminfo()}, load average "
          f"{Path('/proc/loadavg').read_text().split()[0]} before the run; {args.processes} "
          f"daphne processes; mix {', '.join(label(g, s) for g, s, _ in MIX)} "
          f"(+ 1 idle Snakes table in {IDLE_EVERY}); turns {TURN_SECONDS:g} s, humans think "
          f"{THINK[0]:g}-{THINK[1]:g} s, computers 1 s; sockets routed by {base.ROUTE}; "
          f"pings every {PING_EVERY:g} s, "
          f"{'all at once' if PINGS_TOGETHER else 'each socket at its own phase'}", flush=True)

    if args.tables and args.together:
        return together(args)
    if args.tables and args.repeat > 1:
        return repeated(args)
    first = 0
    results: list[tuple[int, dict]] = []
    if args.tables:
        levels = [args.tables]
    else:
        levels, n = [], args.start
        while n <= args.max_tables:
            levels.append(n)
            n = int(n * 1.5)
    sustainable = None
    for tables in levels:
        result, _ = level(tables, args.duration, args.processes, first)
        first += tables
        s = print_level("khelaghor", result)
        results.append((tables, result))
        held = s["p99"] <= 100 and s["errors"] == 0 and s["timeouts"] == 0
        if held:
            sustainable = (tables, result)
        if not held or args.tables:
            break
    if sustainable is None:
        print("sustainable load: none of the levels held (p99 <= 100 ms, 0 errors, "
              "0 timeouts at acting tables)")
        sustainable = results[0]
    else:
        print(f"sustainable load: {sustainable[0]} tables "
              f"({summarise(sustainable[1])['updates_s']:.0f} updates/s)", flush=True)
    tables, result = sustainable
    sustained = summarise(result)
    floor_beside(tables, sustained, args)
    print(f"-- {tables} tables again, the floor side by side (--together)", flush=True)
    level_side_by_side(tables, args.duration, args.processes, first,
                       sustained["updates_s"], int(sustained["frame_size"]))
    first += tables
    if not args.tables and args.past:
        past = max(1, int(round(tables * args.past)))
        result, _ = level(past, args.duration, args.processes, first)
        p = print_level(f"past capacity ({args.past:g}x)", result)
        print(f"past capacity: timeouts at acting tables {p['timeouts']} (goal 0), errors "
              f"{100 * p['error_rate']:.2f}% of actions (goal < 1%), p99 {p['p99']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
