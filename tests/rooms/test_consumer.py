"""The room socket through the real ASGI stack (origin check, sessions, routing)
with Channels' WebsocketCommunicator: every bad input gets a typed error and
changes nothing; abuse closes the connection."""

from __future__ import annotations

import asyncio
import json

import pytest
from autobahn.exception import Disconnected
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from config.asgi import application
from rooms import services
from rooms.models import MoveLog, Room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    from django.core.cache import cache

    cache.clear()  # guessing counters are per address, shared by every test here
    yield
    cache.clear()


def guest_session(name: str) -> str:
    store = SessionStore()
    store["nickname"] = name
    store.create()
    return store.session_key


async def aguest(name: str) -> str:
    from asgiref.sync import sync_to_async

    return await sync_to_async(guest_session)(name)


async def connect(code: str, session_key: str | None = None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
    if session_key:
        headers.append((b"cookie", f"sessionid={session_key}".encode()))
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def receive(socket, kind: str | None = None, timeout: float = 5, where=None):
    """The next message of ``kind`` (that satisfies ``where``), skipping others."""
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if (kind is None or message["type"] == kind) and (where is None or where(message)):
            return message


@pytest.fixture
def room_code(db):
    host_key = guest_session("Tanvir")
    room = services.room_create(
        actor=services.Actor(host_key, "Tanvir"), game="liars_dice", seats=2
    )
    return room.code, host_key


async def test_connecting_sends_a_snapshot_with_my_seat(room_code):
    code, host_key = room_code
    socket = await connect(code.lower(), host_key)
    snapshot = await receive(socket, "snapshot")
    assert snapshot["you"] == {"seat": 0, "is_host": True, "name": "Tanvir"}
    assert snapshot["room"]["code"] == code and snapshot["game"] is None
    await socket.disconnect()


async def test_an_unknown_room_is_an_error_then_closed():
    socket = await connect("ZZZZ", await aguest("x"))
    error = await receive(socket)
    assert error["type"] == "error" and error["code"] == "not_found"
    closed = await socket.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4004}


@pytest.mark.parametrize(
    "frame,code",
    [
        ("not json", "bad_message"),
        ("[1, 2]", "bad_message"),
        ('{"no": "type"}', "bad_message"),
        ('{"type": "dance"}', "bad_message"),
        ('{"type": "start"}', "not_host"),
        ('{"type": "action", "version": 0, "action": {"type": "roll"}}', "wrong_status"),
        ('{"type": "react", "reaction": "<script>"}', "bad_message"),
        ('{"type": "join", "name": "\\u200b"}', "bad_message"),
        # Deeper than Python's recursion limit, in 4 KB: not JSON we can read.
        ("[" * 2000 + "]" * 2000, "bad_message"),
        # A version that is missing or not a number is malformed, not stale.
        ('{"type": "action", "action": {"type": "roll"}}', "bad_message"),
        ('{"type": "action", "version": "0", "action": {"type": "roll"}}', "bad_message"),
        # Fields of the wrong type.
        ('{"type": "react", "reaction": ["clap"]}', "bad_message"),
        ('{"type": "react", "reaction": {"clap": 1}}', "bad_message"),
        ('{"type": "join", "seat": "one"}', "bad_message"),
        ('{"type": "join", "seat": [1]}', "bad_message"),
        ('{"type": "join", "name": 5}', "bad_message"),
        ('{"type": "join", "client_seed": 5}', "bad_message"),
        ('{"type": "seed", "client_seed": ["x"]}', "bad_message"),
        ('{"type": "ping", "id": 5}', "bad_message"),
    ],
)
async def test_bad_input_gets_a_typed_error_and_changes_nothing(room_code, frame, code):
    room_code_, _ = room_code
    socket = await connect(room_code_, await aguest("Rumi"))
    snapshot = await receive(socket, "snapshot")
    await socket.send_to(text_data=frame)
    error = await receive(socket, "error")
    assert error["code"] == code and error["message"]
    await socket.send_json_to({"type": "ping"})
    assert (await receive(socket))["type"] == "pong"  # still connected
    room = await Room.objects.aget(code=room_code_)
    assert room.version == snapshot["version"]
    await socket.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "add_bot", "seat": "one"}',
        '{"type": "add_bot", "seat": [1]}',
        '{"type": "add_bot", "bot": 5}',
        '{"type": "add_bot", "bot": ["standard"]}',
        '{"type": "remove_bot", "seat": "1"}',
        '{"type": "remove_bot", "seat": {"n": 1}}',
        '{"type": "set_options", "options": "fast"}',
        '{"type": "set_options", "options": {"first_player": "me"}}',
        '{"type": "set_options", "options": {}, "pace": 5}',
        '{"type": "set_options", "options": {}, "pace": ["party"]}',
    ],
)
async def test_a_hosts_fields_of_the_wrong_type_get_a_typed_error(room_code, frame):
    code, host_key = room_code
    socket = await connect(code, host_key)
    snapshot = await receive(socket, "snapshot")
    await socket.send_to(text_data=frame)
    error = await receive(socket, "error")
    assert error["code"] in ("bad_message", "illegal_action") and error["message"], error
    await socket.send_json_to({"type": "ping"})
    assert (await receive(socket, "pong"))["type"] == "pong"  # still connected
    room = await Room.objects.aget(code=code)
    assert room.version == snapshot["version"]
    await socket.disconnect()


async def test_an_oversize_frame_closes_the_connection(room_code):
    code, host_key = room_code
    socket = await connect(code, host_key)
    await receive(socket, "snapshot")
    await socket.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * 5000}))
    error = await receive(socket, "error")
    assert error["code"] == "too_large"
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4009}


async def test_flooding_is_refused_then_closed(room_code):
    code, host_key = room_code
    socket = await connect(code, host_key)
    await receive(socket, "snapshot")
    # Unknown types are refused without the database, so all 70 are read
    # within one 2 s window however slow the database is (pings write to it).
    for n in range(70):
        await socket.send_json_to({"type": "hurry", "id": f"m{n}"})
    replies = []
    while True:
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            assert output["code"] == 4029
            break
        reply = json.loads(output["text"])
        if reply["type"] == "error":  # not the update that announced this socket
            replies.append((reply["code"], reply["id"]))
    assert replies == [("bad_message", f"m{n}") for n in range(20)] + [
        ("rate_limited", f"m{n}") for n in range(20, 61)
    ]


async def test_a_name_sent_with_join_is_the_seats_though_the_socket_spoke_before(room_code):
    """The socket keeps who it speaks for (``RoomConsumer.actor``); a new name
    given with ``join`` must not be lost to what it kept."""
    code, host_key = room_code
    guest = await connect(code, await aguest("Rumi"))
    await receive(guest, "snapshot")
    await guest.send_json_to({"type": "leave", "id": "l1"})  # a command as "Rumi"
    assert (await receive(guest, "error"))["code"] == "not_seated"
    await guest.send_json_to({"type": "join", "name": "Nila", "id": "j1"})
    assert (await receive(guest, "ok"))["id"] == "j1"
    joined = await receive(guest, "update", where=lambda m: m["you"]["seat"] == 1)
    assert joined["room"]["seats"][1]["name"] == "Nila" and joined["you"]["name"] == "Nila"
    await guest.disconnect()


def signed_in_session(username: str) -> tuple[str, int]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_user(username, password="a long passphrase 7")
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value, user.pk


async def test_a_name_sent_with_join_is_kept_on_the_players_account(room_code):
    """The account keeps its player's nickname (signing in on a new phone
    brings it back): a name given with ``join`` over the socket as well as one
    typed into the nickname form."""
    from asgiref.sync import sync_to_async
    from django.contrib.auth import get_user_model

    code, _host_key = room_code
    session_key, user_id = await sync_to_async(signed_in_session)("karim_phone")
    guest = await connect(code, session_key)
    await receive(guest, "snapshot")
    await guest.send_json_to({"type": "join", "name": "করিম", "id": "j1"})
    assert (await receive(guest, "ok"))["id"] == "j1"
    user = await get_user_model().objects.aget(pk=user_id)
    assert user.first_name == "করিম"
    await guest.disconnect()


async def test_join_start_and_a_stale_action_gets_a_resync(room_code):
    code, host_key = room_code
    host = await connect(code, host_key)
    guest = await connect(code, await aguest("রুমি"))
    await receive(host, "snapshot")
    await receive(guest, "snapshot")
    await guest.send_json_to({"type": "join", "client_seed": "abc123"})
    joined = await receive(host, "update", where=lambda m: m["events"])
    assert joined["events"] == [{"type": "joined", "seat": 1}]
    await host.send_json_to({"type": "start", "id": "s1"})
    started = await receive(guest, "update", where=lambda m: m["room"]["status"] == "playing")
    assert started["room"]["status"] == "playing"
    assert started["game"]["fairness"]["client_seed"] == "abc123"
    # Only my own cup in my view and in my copy of the deal.
    deal = next(e for e in started["events"] if e["type"] == "round")
    assert list(deal["dice"]) == ["1"] and started["game"]["view"]["my_dice"] == deal["dice"]["1"]
    moves_before = await MoveLog.objects.filter(game__room__code=code).acount()
    await host.send_json_to(
        {"type": "action", "version": started["version"] - 1,
         "action": {"type": "bid", "quantity": 1, "face": 2}}
    )
    assert (await receive(host, "error"))["code"] == "stale_version"
    resync = await receive(host, "snapshot")
    assert resync["version"] >= started["version"]
    assert await MoveLog.objects.filter(game__room__code=code).acount() == moves_before
    await host.disconnect()
    await guest.disconnect()


async def test_start_now_over_the_socket_starts_a_quick_play_table_and_is_refused_elsewhere(
    room_code,
):
    from asgiref.sync import sync_to_async

    # A private table: its host starts it; start_now is refused and nothing changes.
    code, host_key = room_code
    host = await connect(code, host_key)
    before = await receive(host, "snapshot")
    await host.send_json_to({"type": "start_now", "id": "n1"})
    refused = await receive(host, "error")
    assert (refused["code"], refused["id"]) == ("wrong_status", "n1")
    assert (await Room.objects.aget(code=code)).version == before["version"]
    await host.disconnect()

    # A quick-play table: a seated player starts it at once, computers in the empty seats.
    key = await aguest("Mitu")
    quick = await sync_to_async(services.play_now)(
        actor=services.Actor(key, "Mitu"), game="snakes"
    )
    watcher = await connect(quick.code, await aguest("Watcher"))
    await receive(watcher, "snapshot")
    await watcher.send_json_to({"type": "start_now", "id": "n2"})
    assert (await receive(watcher, "error"))["code"] == "not_seated"
    player = await connect(quick.code, key)
    lobby = await receive(player, "snapshot")
    assert lobby["room"]["autostart_at"] is not None
    await player.send_json_to({"type": "start_now", "id": "n3"})
    started = await receive(player, "update", where=lambda m: m["room"]["status"] == "playing")
    assert [s["kind"] for s in started["room"]["seats"]] == ["human", "bot", "bot", "bot"]
    assert started["room"]["autostart_at"] is None
    await player.disconnect()
    await watcher.disconnect()


async def test_reconnecting_returns_the_same_seat(room_code):
    code, host_key = room_code
    first = await connect(code, host_key)
    await receive(first, "snapshot")
    await first.disconnect()
    again = await connect(code, host_key)
    snapshot = await receive(again, "snapshot")
    assert snapshot["you"]["seat"] == 0
    await again.disconnect()


async def test_guessing_codes_over_the_socket_is_rate_limited():
    from rooms import guessing

    key = await aguest("guesser")
    for _ in range(guessing.SESSION_MISSES):
        socket = await connect("ZZZZ", key)
        assert (await receive(socket))["code"] == "not_found"
        await socket.receive_output(timeout=5)
    socket = await connect("ZZZZ", key)
    refused = await receive(socket)
    assert refused["code"] == "rate_limited"
    assert 0 < refused["retry_after"] <= guessing.WINDOW_SECONDS
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4029}


async def test_a_command_after_the_room_closed_is_not_found_and_the_socket_stays(room_code):
    from asgiref.sync import sync_to_async

    code, host_key = room_code
    socket = await connect(code, host_key)
    await receive(socket, "snapshot")
    room = await Room.objects.aget(code=code)
    await sync_to_async(services.room_close)(room.id, reason="Closed for a test")
    closed = await receive(socket, "update", where=lambda m: m["room"]["status"] == "closed")
    assert {"type": "closed", "reason": "Closed for a test"} in closed["events"]
    await socket.send_json_to({"type": "start", "id": "s1"})
    refused = await receive(socket, "error")
    assert (refused["code"], refused["id"]) == ("not_found", "s1")
    await socket.send_json_to({"type": "ping", "id": "p1"})
    assert await receive(socket) == {"type": "pong", "id": "p1"}
    await socket.disconnect()


async def test_a_socket_undoes_only_the_presence_it_counted(room_code):
    from asgiref.sync import sync_to_async

    from rooms.models import Seat

    code, host_key = room_code

    async def seat_connections() -> list[int]:
        return [s.connections async for s in Seat.objects.filter(room__code=code).order_by("index")]

    host = await connect(code, host_key)
    await receive(host, "snapshot")
    assert await seat_connections() == [1, 0]

    # A guest's first tab opens before the guest has a seat: it counts on none.
    guest_key = await aguest("Rumi")
    early_tab = await connect(code, guest_key)
    await receive(early_tab, "snapshot")
    # The guest takes the seat from another tab (over HTTP, then its socket).
    await sync_to_async(services.seat_join)(code, services.Actor(guest_key, "Rumi"))
    seated_tab = await connect(code, guest_key)
    await receive(seated_tab, "snapshot")
    assert await seat_connections() == [1, 1]
    # The early tab closes: the guest is still here, in the other tab.
    version = (await Room.objects.aget(code=code)).version
    await early_tab.disconnect()
    assert await seat_connections() == [1, 1]
    assert (await Room.objects.aget(code=code)).version == version
    # The seated tab closes: now the guest has gone.
    await seated_tab.disconnect()
    assert await seat_connections() == [1, 0]

    # A spectator who joins over its socket counts from then on, and its
    # close takes the seat offline again.
    newcomer = await connect(code, await aguest("Mitu"))
    await receive(newcomer, "snapshot")
    await sync_to_async(services.seat_leave)(code, services.Actor(guest_key, "Rumi"))
    await newcomer.send_json_to({"type": "join", "id": "j1"})
    assert (await receive(newcomer, "ok"))["id"] == "j1"
    assert await seat_connections() == [1, 1]
    await newcomer.disconnect()
    assert await seat_connections() == [1, 0]
    await host.disconnect()
    assert await seat_connections() == [0, 0]


class DroppedSocket:
    """The ASGI server's side of a client that has just gone: once ``gone``,
    a frame sent to the socket is refused as daphne refuses it (autobahn's
    Disconnected, "Attempt to send on a closed protocol"), before the
    server's ``websocket.disconnect`` reaches the consumer. With daphne this
    is the moment between a client's close frame (a tab closed, a page left)
    and the end of its TCP connection, when autobahn's socket is closing and
    daphne has not yet marked it gone; seen under the mixed bench, whose
    spectators leave mid-broadcast. Which frame falls in that moment is a
    matter of timing, so the server's side is played here."""

    def __init__(self, app) -> None:
        self.app = app
        self.gone = False
        self.refused = asyncio.Event()

    async def __call__(self, scope, receive, send):
        async def send_unless_gone(message):
            if self.gone and message["type"] == "websocket.send":
                self.refused.set()
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        return await self.app(scope, receive, send_unless_gone)


async def test_an_update_sent_as_the_client_drops_is_let_go_and_its_seat_goes_offline(room_code):

    from rooms.models import Seat

    code, host_key = room_code

    async def seat_connections() -> list[int]:
        return [s.connections async for s in Seat.objects.filter(room__code=code).order_by("index")]

    server = DroppedSocket(application)
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
               (b"cookie", f"sessionid={host_key}".encode())]
    host = WebsocketCommunicator(server, f"/ws/rooms/{code}/", headers=headers)
    assert (await host.connect())[0]
    await receive(host, "snapshot")
    guest_key = await aguest("Rumi")
    guest = await connect(code, guest_key)
    await receive(guest, "snapshot")
    await guest.send_json_to({"type": "join", "id": "j1"})
    assert (await receive(guest, "ok"))["id"] == "j1"
    await receive(host, "update", where=lambda m: m["room"]["seats"][1]["name"] == "Rumi")
    assert await seat_connections() == [1, 1]

    # The host's phone drops; the guest's leaving is broadcast before the
    # server has told the host's consumer.
    server.gone = True
    await guest.send_json_to({"type": "leave", "id": "l1"})
    assert (await receive(guest, "ok"))["id"] == "l1"
    await asyncio.wait_for(server.refused.wait(), timeout=5)
    # The consumer is still there to hear the disconnect, and counts the
    # host's seat offline at once (it raised out of the handler before).
    await host.disconnect()  # re-raises what the consumer raised, if it did
    assert await seat_connections() == [0, 0]
    host_seat = await Seat.objects.aget(room__code=code, index=0)
    assert host_seat.disconnected_at is not None
    await guest.disconnect()


# ---- a finished game's ratings -------------------------------------------------------


def rated_table_of(username: str) -> tuple[str, str, int]:
    """A private rated Snakes table whose host, in seat 0, is signed in as
    ``username``, against a computer: (its code, the host's session key, their id)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_user(username, password="a long pass phrase 7")
    client = Client()
    client.force_login(user)
    key = client.session.session_key
    room = services.room_create(actor=services.Actor(key, "Rumi", user.id), game="snakes",
                                seats=2, options={"rated": True})
    services.bot_add(room.code, services.Actor(key, "Rumi", user.id))
    return room.code, key, user.id


async def test_a_rated_games_end_brings_every_socket_the_ratings_and_later_snapshots_too(settings):
    """The whole way: the move that ends the game, the rating thread after its
    commit, the room's group, each consumer; then a page that comes later.
    The moves are commands run from this event loop as a consumer runs them
    (its loop is this one): a socket may send 20 frames in 2 s, a game takes more."""
    from asgiref.sync import sync_to_async

    from accounts_optional.models import Rating
    from rooms import publish
    from rooms.threads import command

    settings.KHELAGHOR_BOT_DELAY = 0  # the computer rolls within each of our commands
    code, key, user_id = await sync_to_async(rated_table_of)("rumi")
    actor = services.Actor(key, "Rumi", user_id)
    player = await connect(code, key)
    watcher = await connect(code, await aguest("Tanvir"))  # a spectator
    await receive(player, "snapshot")
    await receive(watcher, "snapshot")
    publish.from_event_loop()
    await command(services.game_start)(code, actor)
    while (room := await Room.objects.aget(code=code)).status == Room.Status.PLAYING:
        await command(services.game_action)(code, actor, room.version, {"type": "roll"})
    # The rating thread starts once the last move commits, and its message
    # may overtake that move's update on its way (docs/protocol.md): both are
    # awaited, in whichever order they come.
    ended, told = await update_and_ratings(player, room.version)
    assert ended["game"]["status"] == "finished"
    assert "ratings" not in ended["game"], "rated after the commit that ended it"
    rating = await Rating.objects.aget(user_id=user_id, game="snakes")
    expected = {"type": "ratings", "game": ended["game"]["id"],
                "changes": [{"seat": 0, "before": 25.0, "after": round(rating.mu, 1)}]}
    assert told == expected and rating.games == 1
    assert rating.mu != 25.0, "a result moves a newcomer's rating"
    assert (await update_and_ratings(watcher, room.version))[1] == expected

    # A page that loads now (or reconnects) finds them in its snapshot, and
    # every update of the finished game carries them (the player leaving here).
    later = await connect(code, await aguest("Mitu"))
    snapshot = await receive(later, "snapshot")
    assert snapshot["game"]["id"] == expected["game"]
    assert snapshot["game"]["ratings"] == expected["changes"]
    await player.disconnect()
    update = await receive(watcher, "update",
                           where=lambda m: not m["room"]["seats"][0]["connected"])
    assert update["game"]["ratings"] == expected["changes"]
    for socket in (watcher, later):
        await socket.disconnect()


async def update_and_ratings(socket, version: int) -> tuple[dict, dict]:
    """The update of ``version`` and the ``ratings`` message, in either order."""
    ended = told = None
    while ended is None or told is None:
        message = await socket.receive_json_from(timeout=30)
        if message["type"] == "update" and message["version"] == version:
            ended = message
        elif message["type"] == "ratings":
            told = message
    return ended, told


RATINGS = {"type": "room.ratings", "game": 7,
           "changes": [{"seat": 0, "before": 25.0, "after": 26.4},
                       {"seat": 1, "before": 31.2, "after": 30.5}]}


async def test_the_ratings_are_forwarded_to_a_seat_and_a_spectator_alike(room_code):
    from channels.layers import get_channel_layer

    from rooms.publish import room_group

    code, host_key = room_code
    host = await connect(code, host_key)
    watcher = await connect(code, await aguest("Mitu"))
    await receive(host, "snapshot")
    await receive(watcher, "snapshot")
    room = await Room.objects.aget(code=code)
    await get_channel_layer().group_send(room_group(room.id), dict(RATINGS))
    forwarded = {"type": "ratings", "game": 7, "changes": RATINGS["changes"]}
    assert await receive(host, "ratings") == forwarded
    assert await receive(watcher, "ratings") == forwarded
    await host.disconnect()
    await watcher.disconnect()


async def test_ratings_for_a_socket_the_client_just_dropped_are_let_go(room_code):
    from channels.layers import get_channel_layer

    from rooms.publish import room_group

    code, host_key = room_code
    server = DroppedSocket(application)
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
               (b"cookie", f"sessionid={host_key}".encode())]
    host = WebsocketCommunicator(server, f"/ws/rooms/{code}/", headers=headers)
    assert (await host.connect())[0]
    await receive(host, "snapshot")
    server.gone = True
    room = await Room.objects.aget(code=code)
    await get_channel_layer().group_send(room_group(room.id), dict(RATINGS))
    await asyncio.wait_for(server.refused.wait(), timeout=5)
    await host.disconnect()  # re-raises what the consumer raised, if it did
