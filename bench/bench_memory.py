#!/usr/bin/env python3
"""Memory per connected player: what one WebSocket costs the daphne process,
for the product (rooms made as bench/bench_load.py makes them, PostgreSQL and
the Redis pub/sub channel layer as in production) and for the floor (the bare
broadcast of bench/bare_asgi.py), in the same run.

RSS deltas on a shared, loaded machine move with everything else, so each
server runs under tracemalloc (bench/traced_daphne.py): a snapshot after a few
warm-up sockets, another after N more, and the difference is the Python memory
those N sockets hold, grouped by the line that allocated it and by the first
line of ours on the way there. RSS deltas are printed beside it (minus
tracemalloc's own bookkeeping, which grows with every traced block).

    .venv/bin/python bench/bench_memory.py            # 200 sockets each
    .venv/bin/python bench/bench_memory.py --sockets 400 --top 30
    KHELAGHOR_BENCH_QUICK=1 make bench                 # 100 sockets each

tracemalloc makes daphne several times slower: start-up and connecting can take
minutes on a loaded machine, so the timeouts are long and connecting is gentle.
Uses KHELAGHOR_BENCH_DATABASE_URL / KHELAGHOR_BENCH_REDIS_URL as bench_load.py
does; without PostgreSQL or Redis it says why and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import (  # noqa: E402
    REPO,
    close_rooms,
    free_port,
    open_rooms,
    prepare_database,
    server_env,
    services_missing,
    wait_healthy,
)

SEATS = 4
WARM_UP_TABLES = 2  # their sockets open before the first snapshot: first-use caches, pools
START_TIMEOUT = 900.0
CONNECT_TIMEOUT = 600.0
CONNECT_CONCURRENCY = 4
QUIET = 2.0  # seconds without a frame before a snapshot (presence updates settle)
VENV_MARK = f"{os.sep}site-packages{os.sep}"


# ---- one traced server -------------------------------------------------------------


class TracedServer:
    """daphne under tracemalloc, or (``traced=False``) plain daphne, whose
    snapshots are only its RSS."""

    def __init__(self, app: str, env: dict[str, str], traced: bool = True) -> None:
        self.traced = traced
        self.trace_dir = Path(tempfile.mkdtemp(prefix="bench-memory-"))
        self.port = free_port()
        self.log = self.trace_dir / "daphne.log"
        python = REPO / ".venv" / "bin" / "python"
        with open(self.log, "wb") as handle:
            self.process = subprocess.Popen(
                [str(python if python.exists() else sys.executable),
                 *([str(REPO / "bench" / "traced_daphne.py")] if traced else ["-m", "daphne"]),
                 "-b", "127.0.0.1",
                 "-p", str(self.port),
                 # Traced, a handshake can take longer than daphne's 5 s (then 403); its
                 # "-1 for infinite" rejects every socket at once (daphne 4.2).
                 "--websocket_connect_timeout", "3600", app],
                cwd=REPO, env={**env, "KHELAGHOR_TRACE_DIR": str(self.trace_dir)},
                stdout=handle, stderr=subprocess.STDOUT)
        self.taken = 0

    def wait_healthy(self) -> None:
        wait_healthy(self.port, self.process, self.log, time.monotonic() + START_TIMEOUT,
                     request_timeout=30, interval=1)

    async def snapshot(self) -> tuple[tracemalloc.Snapshot, int, int]:
        """(snapshot, RSS bytes, tracemalloc's own bytes) of the server now."""
        if not self.traced:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
            rss = next(int(line.split()[1]) * 1024 for line in status.splitlines()
                       if line.startswith("VmRSS:"))
            return None, rss, 0
        self.taken += 1
        done = self.trace_dir / f"snapshot-{self.taken}.done"
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + START_TIMEOUT
        while not done.exists():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"no snapshot:\n{self.log.read_text()[-3000:]}")
            await asyncio.sleep(0.5)  # polling for the dump, bounded by the deadline
        rss, overhead = (int(x) for x in done.read_text().split())
        snapshot = tracemalloc.Snapshot.load(str(self.trace_dir / f"snapshot-{self.taken}.pickle"))
        return snapshot, rss, overhead

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.trace_dir, ignore_errors=True)


# ---- sockets -----------------------------------------------------------------------


class Sockets:
    """Open sockets, each read in the background; ``last_frame`` is when any
    frame last arrived (to wait for quiet before a snapshot)."""

    def __init__(self) -> None:
        self.open: list = []
        self.readers: list[asyncio.Task] = []
        self.first_frames = 0
        self.last_frame = time.monotonic()

    async def connect(self, items, wait_first_frame: bool) -> None:
        import websockets

        gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
        before = self.first_frames

        async def one(url, headers, origin):
            async with gate:
                ws = await websockets.connect(url, additional_headers=headers, origin=origin,
                                              max_size=2**22, open_timeout=CONNECT_TIMEOUT,
                                              ping_interval=None)
            self.open.append(ws)
            self.readers.append(asyncio.create_task(self._read(ws)))

        await asyncio.gather(*(one(*item) for item in items))
        if wait_first_frame:
            await self._wait(lambda: self.first_frames - before >= len(items), "first frames")
        await self._wait(lambda: time.monotonic() - self.last_frame >= QUIET, "quiet")

    async def _read(self, ws) -> None:
        import websockets

        first = True
        try:
            async for _ in ws:
                self.last_frame = time.monotonic()
                if first:
                    self.first_frames += 1
                    first = False
        except websockets.ConnectionClosed:
            pass

    @staticmethod
    async def _wait(predicate, what: str) -> None:
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(what)
            await asyncio.sleep(0.2)  # polling a condition with a deadline

    async def close(self) -> None:
        for ws in self.open:
            await ws.close()
        for task in self.readers:
            task.cancel()


def product_items(port: int, rooms) -> list[tuple[str, dict, str]]:
    base = f"127.0.0.1:{port}"
    return [(f"ws://{base}/ws/rooms/{code}/", {"Cookie": f"sessionid={key}"}, f"http://{base}")
            for code, keys in rooms for key in keys]


def bare_items(port: int, first_table: int, tables: int) -> list[tuple[str, dict, str]]:
    base = f"127.0.0.1:{port}"
    return [(f"ws://{base}/ws/bare/{table}/{seat}/", {}, f"http://{base}")
            for table in range(first_table, first_table + tables) for seat in range(SEATS)]


async def measure(server: TracedServer, warm_items, items, wait_first_frame: bool) -> dict:
    sockets = Sockets()
    await sockets.connect(warm_items, wait_first_frame)
    before, rss0, over0 = await server.snapshot()
    started = time.perf_counter()
    await sockets.connect(items, wait_first_frame)
    connect_seconds = time.perf_counter() - started
    after, rss1, over1 = await server.snapshot()
    await sockets.close()
    return {"before": before, "after": after, "sockets": len(items),
            "rss": rss1 - rss0, "overhead": over1 - over0, "connect": connect_seconds}


# ---- reading the difference ----------------------------------------------------------


def where(filename: str) -> str:
    """A short name for a file: ours relative to the repository, a library's
    from its package, the standard library's as ``stdlib/<file>``."""
    if VENV_MARK in filename:
        return filename.split(VENV_MARK, 1)[1]
    if filename.startswith(str(REPO)):
        return "ours: " + os.path.relpath(filename, REPO)
    return "stdlib/" + Path(filename).name


def package(filename: str) -> str:
    name = where(filename)
    if name.startswith("ours: "):
        return "ours: " + name[6:].split(os.sep, 1)[0]
    if name.startswith("stdlib/"):
        return "stdlib: " + name[7:].removesuffix(".py")
    return name.split(os.sep, 1)[0]


def first_ours(traceback) -> str | None:
    """Our innermost frame on the way to an allocation (frames run oldest
    first), or None when none of the 8 kept frames is ours."""
    for frame in reversed(traceback):
        if frame.filename.startswith(str(REPO)) and VENV_MARK not in frame.filename:
            return f"{os.path.relpath(frame.filename, REPO)}:{frame.lineno}"
    return None


def report(name: str, result: dict, top: int, traces: int = 0) -> float:
    n = result["sockets"]
    if result["before"] is None:
        print(f"{name}, untraced: {n} sockets (connected in {result['connect']:.0f} s): RSS delta "
              f"{result['rss'] / n / 1024:.1f} KB per socket", flush=True)
        return result["rss"] / n
    diffs = result["after"].compare_to(result["before"], "traceback")
    total = sum(d.size_diff for d in diffs)
    blocks = sum(d.count_diff for d in diffs)
    by_line: dict[str, int] = defaultdict(int)
    by_package: dict[str, int] = defaultdict(int)
    by_ours: dict[str, int] = defaultdict(int)
    for diff in diffs:
        innermost = diff.traceback[-1]
        by_line[f"{where(innermost.filename)}:{innermost.lineno}"] += diff.size_diff
        by_package[package(innermost.filename)] += diff.size_diff
        by_ours[first_ours(diff.traceback) or "(no frame of ours)"] += diff.size_diff
    per_socket = total / n
    rss = result["rss"] / n
    print(f"{name}: {n} sockets (connected in {result['connect']:.0f} s): traced Python memory "
          f"{per_socket / 1024:.1f} KB per socket ({blocks / n:.0f} blocks); RSS delta "
          f"{rss / 1024:.1f} KB per socket "
          f"({(result['rss'] - result['overhead']) / n / 1024:.1f} KB without tracemalloc's "
          f"traces; both inflated by tracing)", flush=True)
    for title, table in (("by package (where the allocation happened)", by_package),
                         ("by the allocating line", by_line),
                         ("by our innermost line on the way", by_ours)):
        print(f"   {title}:")
        for key, size in sorted(table.items(), key=lambda kv: -abs(kv[1]))[:top]:
            if abs(size) / n >= 32:
                print(f"      {size / n:8.0f} B  {key}")
    for diff in sorted(diffs, key=lambda d: -d.size_diff)[:traces]:
        print(f"   {diff.size_diff / n:.0f} B per socket allocated at:")
        for frame in diff.traceback:
            print(f"      {where(frame.filename)}:{frame.lineno}")
    return per_socket


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=200, help="measured sockets per server")
    parser.add_argument("--top", type=int, default=15, help="lines shown per grouping")
    parser.add_argument("--traces", type=int, default=0,
                        help="also print the whole kept stack of this many biggest allocations")
    parser.add_argument("--product-only", action="store_true")
    parser.add_argument("--rss", action="store_true",
                        help="then the same without tracemalloc: RSS deltas only (noisy)")
    parser.add_argument("--quick", action="store_true",
                        default=os.environ.get("KHELAGHOR_BENCH_QUICK", "") not in ("", "0"),
                        help="100 sockets (also KHELAGHOR_BENCH_QUICK=1)")
    args = parser.parse_args()
    if args.quick:
        args.sockets = min(args.sockets, 100)
    missing = services_missing()
    if missing:
        print(f"bench_memory: skipped, {missing}")
        return 0
    tables = max(1, args.sockets // SEATS)
    prepare_database()
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.1f} {load[1]:.1f} "
          f"{load[2]:.1f}; one traced daphne per server; {tables * SEATS} sockets measured after "
          f"{WARM_UP_TABLES * SEATS} warm-up sockets", flush=True)

    passes = [True, False] if args.rss else [True]
    figures = {}
    for traced in passes:
        warm_rooms = open_rooms(WARM_UP_TABLES, SEATS)
        rooms = open_rooms(tables, SEATS)
        codes = [code for code, _ in warm_rooms + rooms]
        server = TracedServer("config.asgi:application", server_env(), traced)
        try:
            server.wait_healthy()
            product = asyncio.run(measure(server, product_items(server.port, warm_rooms),
                                          product_items(server.port, rooms), True))
        finally:
            server.stop()
            close_rooms(codes)
        figures["khelaghor", traced] = report("khelaghor", product, args.top, args.traces)
        if args.product_only:
            continue
        server = TracedServer("bench.bare_asgi:application",
                              server_env({"DJANGO_SETTINGS_MODULE": "bench.bare_settings"}),
                              traced)
        try:
            server.wait_healthy()
            bare = asyncio.run(measure(server, bare_items(server.port, 0, WARM_UP_TABLES),
                                       bare_items(server.port, WARM_UP_TABLES, tables), False))
        finally:
            server.stop()
        floor = figures["floor", traced] = report("bare broadcast (floor)", bare, args.top)
        ours = figures["khelaghor", traced]
        what = "traced memory" if traced else "untraced RSS"
        print(f"khelaghor / floor: {ours / max(1.0, floor):.1f}x {what} per socket; "
              f"khelaghor - floor: {(ours - floor) / 1024:.1f} KB per socket", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
