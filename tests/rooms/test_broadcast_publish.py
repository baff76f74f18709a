"""A room's broadcast is published on the event loop's pipelined Redis
connection (``rooms.publish._publishing``), not through channels_redis's own
client, and the layer still delivers it: the sockets of the group, subscribed
by the layer itself, receive the message as the layer's ``group_send`` would
hand it to them. On a real Redis, with one shard and with two. And the layer
as the settings configure it reads what it receives in RESP2, not through
redis-py's costly RESP3 pub/sub handler."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer

from rooms import publish


def deliver_through_our_publish(layer, groups: list[str]) -> list[dict]:
    """Each group gets a socket subscribed by the layer, then a message sent
    through rooms.publish; what each socket receives, in order."""

    async def scene():
        sockets = []
        for group in groups:
            channel = await layer.new_channel()
            await layer.group_add(group, channel)
            sockets.append(channel)
        for number, group in enumerate(groups):
            message = {"type": "room.update", "version": number, "payloads": {"0": "é, ১২"}}
            publishing = publish._publishing(layer, group, message)
            assert publishing is not None  # our path, not the layer's group_send
            sending, armed = publishing
            assert not armed  # nothing to arm: a plain PUBLISH
            assert int(await sending) >= 1  # Redis counted a subscriber
        received = [await asyncio.wait_for(layer.receive(channel), 5) for channel in sockets]
        for group, channel in zip(groups, sockets, strict=True):
            await layer.group_discard(group, channel)
        await layer.flush()
        return received

    return asyncio.run(scene())


@pytest.mark.parametrize("shards", [1, 2])
def test_the_groups_sockets_receive_what_the_loop_publishes(redis_service, shards):
    layer = RedisPubSubChannelLayer(hosts=[redis_service] * shards,
                                    prefix=f"test{uuid.uuid4().hex[:8]}")
    groups = [f"room.{n}" for n in range(6)]  # over two shards, some fall on each
    received = deliver_through_our_publish(layer, groups)
    assert [m["version"] for m in received] == list(range(6))
    assert all(m["type"] == "room.update" and m["payloads"] == {"0": "é, ১২"} for m in received)


def test_other_layers_keep_their_own_group_send():
    async def scene():
        return publish._publishing(InMemoryChannelLayer(), "room.1", {"type": "room.update"})

    assert asyncio.run(scene()) is None


def count_resp3_pubsub_reads(monkeypatch) -> list[int]:
    """Counts the messages that redis-py's RESP3 reader hands its pub/sub push
    handler, which writes out each message's text for a debug line."""
    from redis._parsers import resp3

    calls = [0]
    original = resp3._AsyncRESP3Parser.handle_pubsub_push_response

    async def counted(self, response):
        calls[0] += 1
        return await original(self, response)

    monkeypatch.setattr(resp3._AsyncRESP3Parser, "handle_pubsub_push_response", counted)
    return calls


def test_the_layer_as_configured_reads_its_messages_in_resp2(redis_service, monkeypatch):
    # The host entry of config/settings.py (tests/foundation/test_settings.py
    # checks that the settings give exactly this).
    calls = count_resp3_pubsub_reads(monkeypatch)
    layer = RedisPubSubChannelLayer(hosts=[{"address": redis_service, "protocol": 2}],
                                    prefix=f"test{uuid.uuid4().hex[:8]}")
    received = deliver_through_our_publish(layer, ["room.1", "room.2"])
    assert [m["version"] for m in received] == [0, 1]
    assert calls[0] == 0


def test_redis_py_would_read_them_in_resp3_otherwise(redis_service, monkeypatch):
    # Why the settings name the protocol: without it redis-py 8 speaks RESP3,
    # and every update a process receives goes through that handler.
    calls = count_resp3_pubsub_reads(monkeypatch)
    layer = RedisPubSubChannelLayer(hosts=[redis_service], prefix=f"test{uuid.uuid4().hex[:8]}")
    received = deliver_through_our_publish(layer, ["room.1", "room.2"])
    assert [m["version"] for m in received] == [0, 1]
    assert calls[0] >= 2


def test_a_broadcast_and_its_arm_go_to_redis_in_one_command(redis_service, monkeypatch):
    """A move's update and its next deadline, where the channel layer and the
    timers share a Redis: one command on the loop's line (``_start_send``),
    and the group's socket hears the update and the deadline is armed."""
    from rooms.redis_line import RedisLine
    from rooms.timers import RedisTimers

    prefix = f"test{uuid.uuid4().hex[:8]}"
    layer = RedisPubSubChannelLayer(hosts=[{"address": redis_service, "protocol": 2}],
                                    prefix=prefix)
    timers = RedisTimers(redis_service, prefix=f"{prefix}:timers")
    assert timers.shares_redis(redis_service)
    # Redis knows the script, as it does after a server's first move (the
    # first one goes whole, EVAL, after EVALSHA's NOSCRIPT: rooms.redis_line).
    timers.redis.script_load(timers._publish_and_schedule.script)
    sent: list[bytes] = []
    execute = RedisLine.execute

    async def counted(self, *args):
        sent.append(args[0])
        return await execute(self, *args)

    monkeypatch.setattr(RedisLine, "execute", counted)
    message = {"type": "room.update", "version": 4, "payloads": {"0": "ছক্কা"}}

    async def scene() -> dict:
        channel = await layer.new_channel()
        await layer.group_add("room.7", channel)
        sent.clear()  # the layer's own subscribing is not ours
        publish._start_send(layer, "room.7", message, (timers, "g:7", 12, 2000.0))
        received = await asyncio.wait_for(layer.receive(channel), 5)
        await asyncio.gather(*publish._sending)
        await layer.group_discard("room.7", channel)
        await layer.flush()
        return received

    try:
        received = asyncio.run(scene())
        assert sent == ["EVALSHA"]
        assert received["version"] == 4 and received["payloads"] == {"0": "ছক্কা"}
        assert timers.claim_due(1999.9) == []
        assert timers.claim_due(2000.0) == [("g:7", 12)]
    finally:
        timers.clear()


def test_timers_on_another_redis_are_armed_beside_the_broadcast(redis_service):
    from rooms.timers import RedisTimers

    timers = RedisTimers(redis_service, prefix=f"test{uuid.uuid4().hex[:8]}:timers")
    # Another database of the same server: not the worker's own (each xdist
    # worker has its own database, 15 for gw0, 14 for gw1, tests/services.py).
    server, own = redis_service.rsplit("/", 1)
    other = f"{server}/{(int(own) + 1) % 16}"
    assert timers.shares_redis(redis_service)
    assert not timers.shares_redis(other)
