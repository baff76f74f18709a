"""Bad input over a real socket: refused with a typed error, no side effect,
the connection kept (docs/protocol.md "error"); abuse closes it."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.exceptions import ConnectionClosed

from tests.integration import tables

pytestmark = [pytest.mark.integration]


async def dealt_liars_dice(server):
    """Host (seat 0) and guest (seat 1), no computers; the host opened with
    one 2, so the guest is to move."""
    host, guest, code = await tables.open_table(server.base_url, server.base_url,
                                                "liars_dice", 2)
    await tables.start(host, guest)
    await tables.until(host, lambda m: bool(m["game"]["legal"]))
    version = host.version
    await host.send({"type": "action", "version": version,
                     "action": {"type": "bid", "quantity": 1, "face": 2}})
    for client in (host, guest):
        await tables.until(client, lambda m, v=version: m["version"] > v)
    assert guest.my_turn()
    return host, guest, code


async def reply_to(client, raw: str) -> dict:
    await client.ws.send(raw)
    return await client.wait_for(lambda m: m["type"] in ("error", "ok", "pong"))


async def test_stale_illegal_and_malformed_messages_change_nothing(sqlite_server):
    host, guest, code = await dealt_liars_dice(sqlite_server)
    try:
        before = tables.room_api(guest, code)
        version = guest.version
        assert before["version"] == version

        await guest.send({"type": "action", "version": version - 1,
                          "action": {"type": "bid", "quantity": 2, "face": 2}})
        stale = await guest.wait_for(lambda m: m["type"] == "error")
        assert stale["code"] == "stale_version"
        resync = await guest.recv()
        assert resync["type"] == "snapshot" and resync["version"] == version

        illegal = await reply_to(guest, json.dumps(
            {"type": "action", "version": version, "id": "b1",
             "action": {"type": "bid", "quantity": 1, "face": 2}}))
        assert (illegal["code"], illegal["id"]) == ("illegal_action", "b1")
        assert "must beat" in illegal["message"]

        out_of_turn = await reply_to(host, json.dumps(
            {"type": "action", "version": version,
             "action": {"type": "bid", "quantity": 3, "face": 3}}))
        assert out_of_turn["code"] == "not_your_turn"

        for raw in ("{not json", "[1, 2]", '"roll"', '{"type": "dance"}', '{"no": "type"}',
                    json.dumps({"type": "action", "version": version, "action": "roll"})):
            refused = await reply_to(guest, raw)
            assert refused["type"] == "error" and refused["code"] == "bad_message", raw
            assert refused["message"]

        # Still connected, and nothing moved.
        assert (await reply_to(guest, '{"type": "ping"}'))["type"] == "pong"
        assert (await reply_to(host, '{"type": "ping"}'))["type"] == "pong"
        after = tables.room_api(guest, code)
        assert after["version"] == version
        assert after["game"]["view"] == before["game"]["view"]
        assert after["game"]["view"]["bids"] == [{"seat": 0, "quantity": 1, "face": 2}]
    finally:
        await tables.close_all(host, guest)


async def test_a_ludo_move_that_is_not_legal_is_refused(sqlite_server):
    host, guest, code = await tables.open_table(sqlite_server.base_url,
                                                sqlite_server.base_url, "ludo", 2)
    try:
        await tables.start(host, guest)
        mover = host if host.my_turn() else guest
        assert mover.last["game"]["legal"] == [{"type": "roll"}]
        version = mover.version
        for token in (2, 7):
            refused = await reply_to(mover, json.dumps(
                {"type": "action", "version": version,
                 "action": {"type": "move", "token": token}}))
            assert refused["code"] == "illegal_action"
            assert refused["message"]
        assert tables.room_api(mover, code)["version"] == version
    finally:
        await tables.close_all(host, guest)


async def test_two_sockets_of_one_seat_send_the_same_version_and_one_applies(sqlite_server):
    host, guest, code = await dealt_liars_dice(sqlite_server)
    twin = tables.RoomClient(guest.base_url, guest.name)
    twin.jar = guest.jar  # the same browser in a second tab
    twin.http = guest.http
    try:
        await twin.connect(code)
        assert twin.seat == guest.seat == 1
        version = tables.room_api(guest, code)["version"]
        await tables.until(guest, lambda m: m["version"] == version)
        bid = {"type": "action", "version": version,
               "action": {"type": "bid", "quantity": 2, "face": 5}}
        await asyncio.gather(guest.send({**bid, "id": "tab1"}), twin.send({**bid, "id": "tab2"}))
        replies = await asyncio.gather(
            guest.wait_for(lambda m: m.get("id") == "tab1"),
            twin.wait_for(lambda m: m.get("id") == "tab2"),
        )
        assert sorted(r["type"] for r in replies) == ["error", "ok"]
        assert next(r for r in replies if r["type"] == "error")["code"] == "stale_version"
        after = tables.room_api(guest, code)
        assert after["version"] == version + 1
        assert after["game"]["view"]["bids"][-1] == {"seat": 1, "quantity": 2, "face": 5}
        assert len(after["game"]["view"]["bids"]) == 2
    finally:
        await tables.close_all(host, guest, twin)


async def spectator(server, code):
    client = tables.signed_in(server.base_url, "Dorshok")
    await client.connect(code)
    assert client.seat is None
    return client


async def closed_with(client) -> tuple[int, list[dict]]:
    """Read until the server closes the socket: its close code and the frames."""
    frames = []
    try:
        while True:
            frames.append(await client.recv(10))
    except ConnectionClosed as closed:
        return closed.rcvd.code, frames


async def test_an_oversize_frame_closes_the_connection_with_4009(sqlite_server):
    host = tables.signed_in(sqlite_server.base_url, "Tanvir")
    code = host.create_room("snakes", 2)
    watcher = await spectator(sqlite_server, code)
    try:
        await watcher.ws.send(json.dumps({"type": "ping", "pad": "x" * 4200}))
        code_, frames = await closed_with(watcher)
        assert code_ == 4009
        assert [f["code"] for f in frames if f["type"] == "error"] == ["too_large"]
    finally:
        await tables.close_all(watcher)


async def test_more_than_20_messages_in_2_s_are_refused_and_60_close_the_socket(sqlite_server):
    host = tables.signed_in(sqlite_server.base_url, "Tanvir")
    code = host.create_room("snakes", 2)
    watcher = await spectator(sqlite_server, code)
    try:
        for _ in range(61):
            await watcher.ws.send('{"type": "ping"}')
        code_, frames = await closed_with(watcher)
        assert code_ == 4029
        kinds = [f["type"] if f["type"] != "error" else f["code"] for f in frames]
        assert kinds.count("pong") == 20
        assert kinds.count("rate_limited") == 41  # messages 21..60 refused, 61 closes
        assert kinds[:20] == ["pong"] * 20
    finally:
        await tables.close_all(watcher)
