#!/usr/bin/env python3
"""What handing a command to a thread costs the server, in CPU per call.

Every room command (a move, a computer's move, a socket's arrival) runs in a
command thread (rooms/threads.py) and comes back to the event loop. This
times that round trip with a command that does nothing: a call on the loop
itself (the baseline), ``loop.run_in_executor`` with the caller's context,
asgiref's ``SyncToAsync`` as rooms/threads.py used it until round 13 (its own
executor, not thread-sensitive), and rooms/threads.py's ``CommandThreads``
(a queue and a ``call_soon_threadsafe``; it also looks after the thread's
database connection, here SQLite's, never opened). One call at a time, as a quiet server's are: each
wakes the thread and then the loop. CPU time of this process, so the figure
does not depend on what else the machine runs (docs/performance.md, "What
limits it").

    .venv/bin/python bench/bench_thread_hop.py [--calls 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from asgiref.sync import SyncToAsync

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.pop("DATABASE_URL", None)  # the embedded default: no server needed


def command(x: int) -> int:
    return x + 1


async def measure(calls: int) -> dict[str, float]:
    executor = ThreadPoolExecutor(max_workers=2)
    through_asgiref = SyncToAsync(command, thread_sensitive=False, executor=executor)
    loop = asyncio.get_running_loop()

    async def on_the_loop(x: int) -> int:
        return command(x)

    async def in_executor(x: int) -> int:
        context = contextvars.copy_context()
        return await loop.run_in_executor(executor, context.run, command, x)

    import django

    django.setup()
    from rooms.threads import CommandThreads, in_command_threads

    through_command_threads = in_command_threads(command, CommandThreads(2))
    kinds = {"on the loop (baseline)": on_the_loop, "run_in_executor": in_executor,
             "asgiref SyncToAsync": through_asgiref,
             "rooms CommandThreads": through_command_threads}
    best: dict[str, float] = {}
    for _ in range(3):  # three rounds, each kind's best: the least disturbed
        for name, call in kinds.items():
            started = time.process_time()
            for i in range(calls):
                await call(i)
            per_call = (time.process_time() - started) / calls * 1e6
            best[name] = min(best.get(name, per_call), per_call)
    executor.shutdown()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, load average {load:.2f}; "
          f"{args.calls} calls a kind, the best of three rounds")
    for name, micros in asyncio.run(measure(args.calls)).items():
        print(f"   {name:>24}: {micros:7.1f} us of CPU per call")


if __name__ == "__main__":
    main()
