"""Bad input over a real socket: refused with a typed error, no side effect,
the connection kept (docs/protocol.md "error"); abuse closes it, and nothing
is sent after the close. The protocol's edges: deep nesting, frames far over
the limit, malformed codes in the path, ids on every reply."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

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
        # This client's socket sends no Accept-Language: Bengali, with Bengali digits.
        assert illegal["message"].startswith("ডাককে ১ × ২-এর চেয়ে বড় হতে হবে")

        out_of_turn = await reply_to(host, json.dumps(
            {"type": "action", "version": version,
             "action": {"type": "bid", "quantity": 3, "face": 3}}))
        assert out_of_turn["code"] == "not_your_turn"

        nested = "[" * 2000 + "]" * 2000  # 4 KB, deeper than Python's recursion limit
        for raw in ("{not json", "[1, 2]", '"roll"', '{"type": "dance"}', '{"no": "type"}',
                    json.dumps({"type": "action", "version": version, "action": "roll"}),
                    nested, '{"type": "ping", "deep": ' + "[" * 1000 + "]" * 1000 + "}",
                    # A version that is not one is malformed, not stale.
                    json.dumps({"type": "action", "action": {"type": "challenge"}}),
                    json.dumps({"type": "action", "version": str(version),
                                "action": {"type": "challenge"}}),
                    json.dumps({"type": "action", "version": True,
                                "action": {"type": "challenge"}}),
                    json.dumps({"type": "action", "version": version + 0.5,
                                "action": {"type": "challenge"}})):
            refused = await reply_to(guest, raw)
            assert refused["type"] == "error" and refused["code"] == "bad_message", raw
            assert refused["message"]
        # A message with an id but no type, or a number for one, is answered
        # with its id: a client that waits for the reply to an id gets it.
        for raw in ('{"id": "t1"}', '{"id": "t2", "type": 5}', '{"id": "t3", "type": null}'):
            refused = await reply_to(guest, raw)
            assert (refused["code"], refused.get("id")) == ("bad_message", json.loads(raw)["id"])

        # Still connected, and nothing moved.
        assert (await reply_to(guest, '{"type": "ping"}'))["type"] == "pong"
        assert (await reply_to(host, '{"type": "ping"}'))["type"] == "pong"
        after = tables.room_api(guest, code)
        assert after["version"] == version
        assert after["game"]["view"] == before["game"]["view"]
        assert after["game"]["view"]["bids"] == [{"seat": 0, "quantity": 1, "face": 2}]
    finally:
        await tables.close_all(host, guest)
    assert_no_traceback(sqlite_server)


def assert_no_traceback(server) -> None:
    log = server.log()
    for sign in ("Traceback", "RecursionError", "Attempt to send on a closed protocol"):
        assert sign not in log, f"{sign} in the server's log:\n{log[-4000:]}"


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


# 4.2 KB is refused by the room itself; a megabyte is over daphne's own limit
# (config/frames.py), which answers the same way instead of dropping the line.
@pytest.mark.parametrize("pad", [4200, 1024 * 1024], ids=["4KB", "1MB"])
async def test_an_oversize_frame_gets_too_large_and_closes_with_4009(sqlite_server, pad):
    host = tables.signed_in(sqlite_server.base_url, "Tanvir")
    code = host.create_room("snakes", 2)
    watcher = await spectator(sqlite_server, code)
    try:
        await watcher.ws.send(json.dumps({"type": "ping", "id": "big", "pad": "x" * pad}))
        code_, frames = await closed_with(watcher)
        assert code_ == 4009
        assert [(f["type"], f["code"]) for f in frames] == [("error", "too_large")]
        assert frames[0]["message"]
    finally:
        await tables.close_all(watcher)


async def test_more_than_20_messages_in_2_s_are_refused_and_60_close_the_socket(sqlite_server):
    """Counted per socket as the server reads them; every refusal carries the
    refused message's id, and the frames that were still on their way when
    the server closed get no answer and leave no traceback in its log."""
    host = tables.signed_in(sqlite_server.base_url, "Tanvir")
    code = host.create_room("snakes", 2)
    await host.connect(code)  # the host floods: its seat shows when the server let go
    try:
        # Unknown types are refused without touching the database, so the
        # server reads all of them well within one 2 s window.
        for n in range(1, 71):
            await host.ws.send(json.dumps({"type": "hurry", "id": f"m{n}"}))
        code_, frames = await closed_with(host)
        assert code_ == 4029
        replies = [(f["code"], f["id"]) for f in frames if f["type"] == "error"]
        assert replies[:20] == [("bad_message", f"m{n}") for n in range(1, 21)]
        # 21..60 refused, 61 refused and the socket closed; 62..70 unanswered.
        assert replies[20:] == [("rate_limited", f"m{n}") for n in range(21, 62)]
        # The server has handled every frame once it has handled the close,
        # which (for the host's only socket) shows the seat as away.
        watcher = await spectator(sqlite_server, code)
        await tables.until(watcher, lambda m: m["room"]["seats"][0]["connected"] is False)
        await tables.close_all(watcher)
    finally:
        await tables.close_all(host)
    assert_no_traceback(sqlite_server)


async def test_a_ping_with_an_id_gets_one_pong_with_that_id(sqlite_server):
    host = tables.signed_in(sqlite_server.base_url, "Tanvir")
    code = host.create_room("snakes", 2)
    watcher = await spectator(sqlite_server, code)
    try:
        await watcher.ws.send('{"type": "ping", "id": "p1"}')
        await watcher.ws.send('{"type": "ping"}')
        await watcher.ws.send('{"type": "leave", "id": "l1"}')
        replies = [await watcher.recv() for _ in range(3)]
        assert replies == [
            {"type": "pong", "id": "p1"},
            {"type": "pong"},
            {"type": "error", "code": "not_seated", "id": "l1",
             "message": replies[2]["message"]},
        ]
    finally:
        await tables.close_all(watcher)


@pytest.mark.parametrize("path", ["ab", "ABCDE", "AB1D", "%F0%9F%8E%B2x"])
async def test_a_malformed_code_in_the_path_is_not_found_not_a_server_error(sqlite_server, path):
    client = tables.signed_in(sqlite_server.base_url, "Tanvir")
    cookie = "; ".join(f"{c.name}={c.value}" for c in client.jar)
    try:
        ws = await websockets.connect(
            f"{sqlite_server.ws_url}/ws/rooms/{path}/",
            additional_headers={"Cookie": cookie}, origin=sqlite_server.base_url,
        )
    except InvalidStatus as refused:  # what a missing route used to give: HTTP 500
        pytest.fail(f"handshake refused: HTTP {refused.response.status_code}")
    try:
        # Sent before the refusal is read: it may reach the server after it
        # closed, and then gets no answer (an answer would be a send on a
        # closing socket: a traceback). The close may also beat it here.
        with contextlib.suppress(ConnectionClosed):
            await ws.send('{"type": "ping", "id": "late"}')
        error = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert (error["type"], error["code"]) == ("error", "not_found")
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd.code == 4004
    finally:
        await ws.close()
    assert_no_traceback(sqlite_server)


async def test_a_second_tab_and_a_seated_join_mid_game_change_nothing(sqlite_server):
    """Neither is news to anyone: no version, no update."""
    host, guest, code = await dealt_liars_dice(sqlite_server)
    twin = tables.RoomClient(guest.base_url, guest.name)
    twin.jar = guest.jar  # the same browser in a second tab
    twin.http = guest.http
    try:
        version = tables.room_api(guest, code)["version"]
        snapshot = await twin.connect(code)  # the server counted the tab before this
        assert (snapshot["version"], snapshot["you"]["seat"]) == (version, 1)
        for join in ({"type": "join", "client_seed": "again"}, {"type": "join", "seat": 1}):
            assert (await tables.command(guest, join))["type"] == "ok"
        assert tables.room_api(guest, code)["version"] == version
        # The host hears of nothing: its next frame is the answer to its own ping.
        await host.ws.send('{"type": "ping", "id": "after"}')
        assert await host.recv() == {"type": "pong", "id": "after"}
    finally:
        await tables.close_all(host, guest, twin)
