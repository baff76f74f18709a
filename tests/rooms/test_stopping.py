"""A stopping server writes the seats of its sockets offline (rooms.consumers.
seats_offline_for_stop), including those of sockets that were being counted as
it began to stop or that open while it writes: daphne keeps accepting sockets
until that write is done (up to 10 s), and a seat counted then stayed
"connected" after the process was gone (an operator's drill, 2026-12-07)."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from config.asgi import application
from rooms import consumers, services
from rooms.models import Room, Seat
from rooms.services import Actor
from tests.room_fixtures import paced_computers  # noqa: F401 - a fixture, by name
from tests.rooms.test_presence import connect, guest_session, receive

pytestmark = [pytest.mark.usefixtures("paced_computers"),
              pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def running_server(monkeypatch):
    """Each test starts on a server that is not stopping, with no sockets."""
    monkeypatch.setattr(consumers, "stopping", False)
    monkeypatch.setattr(consumers, "open_sockets", set())
    monkeypatch.setattr(consumers, "late_closes", consumers.LateCloses())


async def two_seat_room():
    await sync_to_async(cache.clear)()  # guessing counters are per address
    host_key = await sync_to_async(guest_session)("Tanvir")
    guest_key = await sync_to_async(guest_session)("রুমি")
    room = await sync_to_async(services.room_create)(
        actor=Actor(host_key, "Tanvir"), game="snakes", seats=2)
    await sync_to_async(services.seat_join)(room.code, Actor(guest_key, "রুমি"))
    return room, host_key, guest_key


async def presence(room) -> list[tuple[int, int, bool]]:
    """(seat, connections, marked disconnected) of the room's seats."""
    return [(seat.index, seat.connections, seat.disconnected_at is not None)
            async for seat in Seat.objects.filter(room=room).order_by("index")]


async def test_a_socket_that_opens_while_the_server_stops_is_turned_away_uncounted():
    room, host_key, guest_key = await two_seat_room()
    host = await connect(room.code, host_key)
    await receive(host, "snapshot")

    assert await consumers.seats_offline_for_stop() == 1
    guest = await connect(room.code, guest_key)  # daphne still accepts it
    closed = await guest.receive_output(timeout=5)

    assert closed == {"type": "websocket.close", "code": consumers.CLOSE_TRY_AGAIN}
    assert await presence(room) == [(0, 0, True), (1, 0, False)]
    await host.disconnect()
    assert await presence(room) == [(0, 0, True), (1, 0, False)]  # not written twice


async def test_a_socket_being_counted_as_the_server_stops_is_written_offline(monkeypatch):
    """Its count lands after the stop began, and daphne cancels the consumer
    (its own shutdown trigger) before the consumer learns it was counted."""
    room, host_key, _ = await two_seat_room()
    counting, go_on = asyncio.Event(), asyncio.Event()
    opened = consumers._opened

    async def slow_opened(*args):
        counting.set()
        await go_on.wait()
        return await opened(*args)

    monkeypatch.setattr(consumers, "_opened", slow_opened)
    host = WebsocketCommunicator(application, f"/ws/rooms/{room.code}/", headers=[
        (b"origin", b"http://testserver"), (b"host", b"testserver"),
        (b"cookie", f"sessionid={host_key}".encode())])
    assert (await host.connect())[0]
    await asyncio.wait_for(counting.wait(), 5)

    stop = asyncio.ensure_future(consumers.seats_offline_for_stop())
    await asyncio.sleep(0)
    host.future.cancel()  # daphne's kill_all_applications
    go_on.set()

    assert await asyncio.wait_for(stop, 10) == 1
    assert await presence(room) == [(0, 0, True), (1, 0, False)]


async def test_a_stop_that_runs_out_of_time_says_how_many_it_wrote(monkeypatch, caplog):
    """A database that answers too slowly: the first room is written, the
    second is still being written when the time is up. The log says how many
    sockets were written (it said none, and "()" for the reason), and no
    write starts after the time is up. (One socket a room: which room goes
    first is the order of a set.)"""
    first, host_key, _ = await two_seat_room()
    second, other_host_key, _ = await two_seat_room()
    sockets = [await connect(room.code, key)
               for room, key in ((first, host_key), (second, other_host_key))]
    for socket in sockets:
        await receive(socket, "snapshot")
    closed = services.connections_closed

    def slowly_closed(code, actors):
        time.sleep(0.5)  # a slow database
        closed(code, actors)

    monkeypatch.setattr(services, "connections_closed", slowly_closed)
    monkeypatch.setattr(consumers, "STOPPING_WRITE_SECONDS", 0.75)

    assert await consumers.seats_offline_for_stop() == 1

    assert "the server is stopping: 1 of 2 socket(s)' seats written offline" in caplog.text
    assert "(no answer in 0.75 s)" in caplog.text
    await asyncio.sleep(1)  # the second write, under way when the time was up, ends
    for socket in sockets:
        await socket.disconnect()


async def test_a_stop_writes_each_rooms_sockets_in_one_command(monkeypatch):
    """Sockets of two rooms, opened in turns: two commands, one per room, each
    with its room's players, and every seat offline with one version more."""
    first, host_key, guest_key = await two_seat_room()
    second, other_host_key, other_guest_key = await two_seat_room()
    order = ((first, host_key), (second, other_host_key), (first, guest_key),
             (second, other_guest_key))
    sockets = [await connect(room.code, key) for room, key in order]
    for socket in sockets:
        await receive(socket, "snapshot")
    versions = {room.code: (await Room.objects.aget(pk=room.pk)).version
                for room in (first, second)}
    commands = []
    closed = services.connections_closed

    def counted(code, actors):
        commands.append((code, sorted(actor.session_key for actor in actors)))
        closed(code, actors)

    monkeypatch.setattr(services, "connections_closed", counted)

    assert await consumers.seats_offline_for_stop() == 4

    assert sorted(commands) == sorted([
        (first.code, sorted([host_key, guest_key])),
        (second.code, sorted([other_host_key, other_guest_key]))])
    for room in (first, second):
        assert await presence(room) == [(0, 0, True), (1, 0, True)]
        assert (await Room.objects.aget(pk=room.pk)).version == versions[room.code] + 1
    for socket in sockets:
        await socket.disconnect()


async def test_a_stop_also_writes_the_closes_that_waited_for_the_database():
    """A socket closed while the database was away; its seat waits to be
    written (LateCloses). The process is stopped before its next try: the
    stop writes it, since nobody will try again."""
    room, host_key, _ = await two_seat_room()
    host = Actor(host_key, "Tanvir")
    await sync_to_async(services.connection_opened)(room.code, host)  # its socket, counted
    consumers.late_closes.pending.append((time.monotonic() + 300, room.code, host))

    assert await consumers.seats_offline_for_stop() == 1

    assert await presence(room) == [(0, 0, True), (1, 0, False)]
    assert consumers.late_closes.pending == []
