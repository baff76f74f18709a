"""RedisChannelLayer or RedisPubSubChannelLayer? CPU per delivered message, measured.

One process plays both sides, as a daphne process does: G groups of M member
channels, a room-update-sized payload sent to each group in turn; we count the
process CPU time per delivered message and the wall time, for both layers.
Prints figures; needs Redis (REDIS_URL or redis://127.0.0.1:6379/14).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

PAYLOAD = {"type": "room.update", "version": 1, "owners": {"x" * 20: 0},
           "payloads": {str(i): {"blob": "y" * 1500} for i in range(5)}}


async def measure(layer, groups: int, members: int, rounds: int) -> tuple[float, float, int]:
    channels = {}
    for g in range(groups):
        channels[g] = [await layer.new_channel() for _ in range(members)]
        for ch in channels[g]:
            await layer.group_add(f"bench{g}", ch)
    # Pub/sub subscriptions are set up lazily; one warm-up round settles them.
    readers = []

    async def reader(ch, expected):
        for _ in range(expected):
            await layer.receive(ch)

    expected = rounds
    for g in range(groups):
        for ch in channels[g]:
            readers.append(asyncio.create_task(reader(ch, expected)))
    await asyncio.sleep(0.2)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(rounds):
        for g in range(groups):
            await layer.group_send(f"bench{g}", PAYLOAD)
    await asyncio.wait_for(asyncio.gather(*readers), 120)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    for g in range(groups):
        for ch in channels[g]:
            await layer.group_discard(f"bench{g}", ch)
    return cpu, wall, rounds * groups * members


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/14"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception as exc:  # noqa: BLE001 - a bench reports and moves on
        print(f"channel layers: Redis at {url} does not answer ({exc}); skipped")
        return
    from channels_redis.core import RedisChannelLayer
    from channels_redis.pubsub import RedisPubSubChannelLayer

    groups, members, rounds = (20, 4, 20) if args.quick else (50, 4, 60)
    print(f"Channel layers: {groups} groups x {members} members, {rounds} sends per group,"
          f" payload ~{len(str(PAYLOAD))} B")
    for name, factory in (
        ("RedisChannelLayer", lambda: RedisChannelLayer(hosts=[url], capacity=1500)),
        ("RedisPubSubChannelLayer", lambda: RedisPubSubChannelLayer(hosts=[url])),
    ):
        layer = factory()
        cpu, wall, delivered = await measure(layer, groups, members, rounds)
        if hasattr(layer, "close_pools"):
            await layer.close_pools()
        else:
            await layer.flush()
        print(f"{name:>24}: {delivered} deliveries, {cpu / delivered * 1e6:7.1f} µs CPU each,"
              f" {delivered / wall:8.0f} deliveries/s")


if __name__ == "__main__":
    asyncio.run(main())
