#!/usr/bin/env python3
"""Profile one room action end to end on PostgreSQL + Redis, without daphne:
``services.game_action`` (lock, rules, writes, commit), then what runs after
commit (every seat's view rendered to JSON, the next deadline armed in Redis).
The channel layer's send is left out (it runs on the event loop in a server).

It first times ``count`` actions without the profiler (CPU per action, the
figure to compare between versions), then profiles ``count`` more with
cProfile on a CPU clock, so a busy machine's waits do not count:

    .venv/bin/python bench/profile_action.py                 # Snakes, 300 actions
    .venv/bin/python bench/profile_action.py liars_dice 200
    .venv/bin/python bench/profile_action.py ludo 300 kept   # from kept rows

With ``kept`` this process listens to the room, as a server with the room's
sockets does (rooms.fresh): each move is computed from the rows the last one
kept and written in one round trip behind its guard, the path of a room whose
sockets are all on one server (``--route room`` in the benches).

Same database and Redis as bench_load.py (KHELAGHOR_BENCH_DATABASE_URL,
KHELAGHOR_BENCH_REDIS_URL); the room is closed at the end. Not a bench_*.py:
`make bench` does not run it.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import subprocess
import sys
import time

import bench_load as base


def main() -> int:
    game = sys.argv[1] if len(sys.argv) > 1 else "snakes"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    kept = len(sys.argv) > 3 and sys.argv[3] == "kept"
    missing = base.services_missing()
    if missing:
        print(f"profile_action: skipped, {missing}")
        return 0
    env = base.server_env({"KHELAGHOR_TURN_SECONDS": "600"})
    os.environ.update({k: v for k, v in env.items()
                       if k.startswith(("DATABASE", "REDIS", "DJANGO", "KHELAGHOR"))})
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=base.REPO,
                   env=env, check=True, capture_output=True)
    import django

    django.setup()
    from django.contrib.sessions.backends.db import SessionStore

    from games.bots import make_bot
    from rooms import fresh, publish, services

    publish.get_channel_layer = lambda: None  # build every view, send nothing
    actors = []
    for seat in range(4):
        session = SessionStore()
        session["nickname"] = f"P{seat}"
        session.create()
        actors.append(services.Actor(session.session_key, f"P{seat}"))
    room = services.room_create(actor=actors[0], game=game, seats=4)
    for actor in actors[1:]:
        services.seat_join(room.code, actor)
    services.game_start(room.code, actors[0])
    if kept:
        fresh.listening(room.id)
    rng = random.Random(1)
    bot = make_bot(game, "random")
    profile = cProfile.Profile(time.process_time)
    spent, done = 0.0, 0
    plain_spent, plain_done = 0.0, 0
    from_kept = 0
    try:
        for number in range(2 * count):
            # The first half runs without the profiler (the CPU a server spends),
            # the second half under it (where that CPU goes).
            profiled = number >= count
            seen = services.snapshot_for(room.code, actors[0].session_key)
            if seen["room"]["status"] != "playing":
                services.game_start(room.code, actors[0])
                continue
            seat = seen["game"]["turn"]["seat"]
            mine = services.snapshot_for(room.code, actors[seat].session_key)
            action = bot.choose(mine["game"]["view"], mine["game"]["legal"], rng)
            if kept:
                from_kept += fresh.room_for_action(room.code, seen["version"]) is not None
            started = time.process_time()
            if profiled:
                profile.enable()
            services.game_action(room.code, actors[seat], seen["version"], action)
            if profiled:
                profile.disable()
                spent += time.process_time() - started
                done += 1
            else:
                plain_spent += time.process_time() - started
                plain_done += 1
    finally:
        services.room_close(room.id, reason="The profile is over")
    if kept:
        print(f"computed from kept rows: {from_kept} of {2 * count} actions; "
              f"done again under the lock: {fresh.stats['moved']}")
    print(f"{game}: {plain_done} actions, {1000 * plain_spent / max(1, plain_done):.2f} ms CPU "
          f"each without the profiler; {done} more, {1000 * spent / max(1, done):.2f} ms CPU "
          f"each under it")
    stats = pstats.Stats(profile)
    # PROFILE_SORT=tottime shows where the time is spent rather than under what.
    stats.sort_stats(os.environ.get("PROFILE_SORT", "cumulative"))
    stats.print_stats(int(os.environ.get("PROFILE_LINES", "40")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
