"""The event loop's pipelined Redis connection (rooms.redis_line), against a
real Redis; a silent server and a garbled one are local sockets, since a real
Redis cannot be told to misbehave for one client only."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from rooms.redis_line import RedisLine, encode, line_for


@pytest.fixture
def keys(redis_service):
    """A fresh key prefix on the test Redis, and a plain client to look with."""
    client = redis.Redis.from_url(redis_service)
    prefix = f"test:line:{uuid.uuid4().hex}"
    yield prefix, client
    found = client.keys(f"{prefix}:*")
    if found:
        client.delete(*found)


def test_a_command_is_encoded_as_an_array_of_bulk_strings():
    assert encode("SET", "k", "১২:1.5", "EX", 10) == (
        b"*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n\xe0\xa7\xa7\xe0\xa7\xa8:1.5\r\n$2\r\nEX\r\n$2\r\n10\r\n"
    )


def test_pipelined_replies_reach_the_commands_they_answer(redis_service, keys):
    prefix, client = keys
    client.set(f"{prefix}:there", "x")

    async def many():
        line = RedisLine(redis_service)
        # Alternate keys that exist (DEL answers 1) and keys that do not (0),
        # all written before any reply is read.
        deletes = [line.execute("DEL", f"{prefix}:there" if i == 7 else f"{prefix}:none{i}")
                   for i in range(20)]
        sets = [line.execute("SET", f"{prefix}:{i}", f"v{i}", "EX", 30) for i in range(50)]
        return await asyncio.gather(*deletes), await asyncio.gather(*sets)

    deletes, sets = asyncio.run(many())
    assert deletes == [b"1" if i == 7 else b"0" for i in range(20)]
    assert sets == [b"OK"] * 50
    assert [client.get(f"{prefix}:{i}") for i in range(50)] == [f"v{i}".encode() for i in range(50)]
    assert 0 < client.ttl(f"{prefix}:3") <= 30


def test_the_url_database_is_selected(redis_service, keys):
    prefix, client = keys
    other_db = 12 if client.connection_pool.connection_kwargs.get("db", 0) != 12 else 11
    other_url = redis_service.rsplit("/", 1)[0] + f"/{other_db}"
    other = redis.Redis.from_url(other_url)

    async def set_there():
        return await RedisLine(other_url).execute("SET", f"{prefix}:db", "here", "EX", 30)

    try:
        assert asyncio.run(set_there()) == b"OK"
        assert other.get(f"{prefix}:db") == b"here"
        assert client.get(f"{prefix}:db") is None
    finally:
        other.delete(f"{prefix}:db")


def test_an_error_reply_fails_its_command_only(redis_service, keys):
    prefix, client = keys

    async def run():
        line = RedisLine(redis_service)
        bad = line.execute("SET", f"{prefix}:a", "v", "EX", "soon")
        good = line.execute("SET", f"{prefix}:b", "v", "EX", 30)
        results = await asyncio.gather(bad, good, return_exceptions=True)
        return results, await line.execute("DEL", f"{prefix}:b")

    (bad, good), deleted = asyncio.run(run())
    assert isinstance(bad, ResponseError) and "integer" in str(bad)
    assert good == b"OK" and deleted == b"1"
    assert client.get(f"{prefix}:a") is None


def test_a_connection_redis_closed_is_replaced_and_the_command_lands(redis_service, keys):
    prefix, client = keys

    async def run():
        line = RedisLine(redis_service)
        connection_id = int(await line.execute("CLIENT", "ID"))
        assert client.client_kill_filter(_id=connection_id) == 1
        # Whether or not the line has read the close yet, the SET lands.
        reply = await line.execute("SET", f"{prefix}:after", "v", "EX", 30)
        return connection_id, reply, int(await line.execute("CLIENT", "ID"))

    old_id, reply, new_id = asyncio.run(run())
    assert reply == b"OK" and client.get(f"{prefix}:after") == b"v"
    assert new_id != old_id


def test_a_cancelled_command_does_not_take_the_next_ones_reply(redis_service, keys):
    prefix, client = keys
    client.set(f"{prefix}:k", "x")

    async def run():
        line = RedisLine(redis_service)
        await line.execute("DEL", f"{prefix}:nothing")  # the connection is open
        # The SET is written and its caller gives up before the reply is read
        # (a task cancelled while it awaits cancels the future it awaits).
        pipeline = line._pipeline
        abandoned = pipeline.send(encode("SET", f"{prefix}:c", "v", "EX", 30))
        abandoned.cancel()
        deleted = await line.execute("DEL", f"{prefix}:k")
        return deleted, abandoned.cancelled(), line._pipeline is pipeline and not pipeline.closed

    deleted, was_cancelled, same_connection = asyncio.run(run())
    assert was_cancelled and deleted == b"1"
    assert same_connection  # the skipped reply did not break the connection
    assert client.get(f"{prefix}:c") == b"v"  # Redis ran it; only its caller left


async def _local_server(reply: bytes | None):
    """A TCP server on localhost that answers every command with ``reply``,
    or never, if it is None."""
    async def handle(reader, writer):
        while await reader.read(4096):
            if reply is not None:
                writer.write(reply)
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def test_a_server_that_does_not_answer_fails_every_waiting_command_in_time():
    async def run():
        server, port = await _local_server(None)
        async with server:
            line = RedisLine(f"redis://127.0.0.1:{port}/0", timeout=0.2)
            results = await asyncio.gather(line.execute("SET", "a", "1"), line.execute("DEL", "a"),
                                           return_exceptions=True)
            return results, line._pipeline.closed

    results, closed = asyncio.run(run())
    assert all(isinstance(r, RedisTimeoutError) for r in results), results
    assert closed


def test_a_reply_it_cannot_read_closes_the_connection():
    async def run():
        server, port = await _local_server(b"$3\r\nabc\r\n")
        async with server:
            line = RedisLine(f"redis://127.0.0.1:{port}/0", timeout=5)
            with pytest.raises(RedisConnectionError, match="Unexpected reply"):
                await line.execute("SET", "a", "1")

    asyncio.run(run())


def test_no_redis_at_the_address_is_a_connection_error():
    async def run():
        server, port = await _local_server(None)
        server.close()
        await server.wait_closed()
        with pytest.raises(RedisConnectionError):
            await RedisLine(f"redis://127.0.0.1:{port}/0").execute("SET", "a", "1")

    asyncio.run(run())


def test_a_loop_keeps_one_line_per_redis_and_timeout(redis_service):
    """rooms.redis_line.line_for: the timers and the broadcasts each reuse theirs."""

    async def lines():
        timers, again = line_for(redis_service), line_for(redis_service)
        broadcasts = line_for(redis_service, 5.0)
        assert await broadcasts.execute("PING") == b"PONG"
        return timers is again, timers is broadcasts

    assert asyncio.run(lines()) == (True, False)
