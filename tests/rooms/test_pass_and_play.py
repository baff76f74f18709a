"""Pass and play (issue #18): players who share the host's phone sit in seats
of their own (Seat.on_device), played by the host's session. Services on the
test database: adding and removing them and every refusal, actions for a seat
the session holds and for one it does not, presence, timeouts per seat, the
record, and a player's own games."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore

from games.record import check_shape, replay
from games.registry import get_game
from rooms import clock, errors, moderation, selectors, services
from rooms.models import MoveLog, Room, Seat
from rooms.services import Actor
from rooms.services.core import seat_of, seats_of
from rooms.timers import get_timer_backend
from tests.room_fixtures import (  # noqa: F401 - fixtures, by name
    moderator,
    paced_computers,
    person,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("paced_computers")]


def table(game: str = "liars_dice", seats: int = 3, **kwargs) -> tuple[Room, Actor]:
    host = person("Tanvir")
    return services.room_create(actor=host, game=game, seats=seats, **kwargs), host


def version(room: Room) -> int:
    room.refresh_from_db()
    return room.version


def seat(room: Room, index: int) -> Seat:
    return Seat.objects.get(room=room, index=index)


def family(game: str = "liars_dice", seats: int = 3) -> tuple[Room, Actor]:
    """The host and two players on the host's phone, the game started."""
    room, host = table(game, seats)
    services.device_player_add(room.code, host, 1, "Rina")
    services.device_player_add(room.code, host, 2, "মিতু")
    for extra in range(3, seats):
        services.bot_add(room.code, host, extra)
    services.game_start(room.code, host)
    room.refresh_from_db()
    return room, host


def turn(room: Room) -> int:
    return services.current_game(room).turn_seat


# ---- the lobby -----------------------------------------------------------------


def test_the_host_seats_a_player_on_this_phone():
    room, host = table()
    services.device_player_add(room.code, host, 2, "  Rina  ")
    added = seat(room, 2)
    assert (added.kind, added.name, added.on_device) == ("human", "Rina", True)
    assert added.session_key == host.session_key and added.user_id is None
    # The host's own seat is still the session's seat.
    seats = seats_of(room)
    assert seat_of(seats, host).index == 0
    assert [s.index for s in services.seats_held(seats, host)] == [0, 2]
    room_json = selectors.room_json(room, seats)
    assert room_json["seats"][2]["on_device"] is True
    assert room_json["seats"][0]["on_device"] is False


def test_without_a_seat_the_lowest_open_one_is_taken_and_removing_opens_it():
    room, host = table()
    services.device_player_add(room.code, host, None, "Rina")
    assert seat(room, 1).on_device
    services.device_player_remove(room.code, host, 1)
    opened = seat(room, 1)
    assert (opened.kind, opened.session_key, opened.on_device) == ("open", "", False)


@pytest.mark.parametrize(
    "setup,seat_index,name,code",
    [
        ("guest", 2, "Rina", "not_host"),
        ("none", 2, "\u200b", "bad_message"),
        ("none", 2, "", "bad_message"),
        ("none", 2, 5, "bad_message"),
        ("none", 1, "Rina", "seat_taken"),
        ("none", 7, "Rina", "bad_message"),
        ("none", "2", "Rina", "bad_message"),
        ("started", 2, "Rina", "wrong_status"),
        ("rated", 2, "Rina", "wrong_status"),
    ],
)
def test_adding_a_player_on_this_phone_is_refused(setup, seat_index, name, code):
    room, host = table(seats=3)
    guest = person("রুমি")
    services.seat_join(room.code, guest, 1)
    who = host
    if setup == "guest":
        who = guest
    elif setup == "started":
        services.bot_add(room.code, host, 2)
        services.game_start(room.code, host)
    elif setup == "rated":
        services.options_set(room.code, host, {"rated": True}, None)
    before = version(room)
    with pytest.raises(errors.RoomError) as refused:
        services.device_player_add(room.code, who, seat_index, name)
    assert refused.value.code == code
    assert version(room) == before
    assert not Seat.objects.filter(room=room, on_device=True).exists()


def test_quick_play_tables_refuse_players_on_one_phone():
    host = person("Tanvir")
    room = services.play_now(actor=host, game="liars_dice")
    with pytest.raises(errors.WrongStatus):
        services.device_player_add(room.code, host, 1, "Rina")


def test_a_table_with_players_on_one_phone_cannot_be_rated():
    room, host = table()
    services.device_player_add(room.code, host, 1, "Rina")
    with pytest.raises(errors.WrongStatus):
        services.options_set(room.code, host, {"rated": True}, None)
    room.refresh_from_db()
    assert not room.options.get("rated")


def test_only_a_player_on_this_phone_is_removed_that_way():
    room, host = table()
    guest = person("রুমি")
    services.seat_join(room.code, guest, 1)
    services.bot_add(room.code, host, 2)
    for index in (0, 1, 2, 9, "1"):
        with pytest.raises(errors.BadMessage):
            services.device_player_remove(room.code, host, index)
    assert [s.kind for s in seats_of(room)] == ["human", "human", "bot"]


# ---- playing ----------------------------------------------------------------------


def test_an_action_names_the_seat_it_is_for():
    room, host = family()
    mover = turn(room)
    game_row = services.current_game(room)
    state = services.load_state(game_row)
    action = next(a for a in get_game("liars_dice").legal_actions(state, mover)
                  if a["type"] == "bid")
    services.game_action(room.code, host, version(room), action, mover)
    last = MoveLog.objects.filter(game=game_row).order_by("-seq").first().event
    assert last["type"] == "bid" and last["seat"] == mover


@pytest.mark.parametrize("wanted", [3, 1, "1", True, 99])
def test_an_action_for_a_seat_the_session_does_not_play_is_refused(wanted):
    room, host = table(seats=4)
    guest = person("রুমি")
    services.device_player_add(room.code, host, 1, "Rina")
    services.seat_join(room.code, guest, 2)
    services.bot_add(room.code, host, 3)
    services.game_start(room.code, host)
    # The guest plays seat 2 and nothing else; 3 is a computer's.
    who = guest if wanted != 3 else host
    before, moves = version(room), MoveLog.objects.filter(game__room=room).count()
    with pytest.raises(errors.NotSeated) as refused:
        services.game_action(room.code, who, before, {"type": "challenge"}, wanted)
    assert refused.value.message == "That seat is not played on this device"
    assert version(room) == before
    assert MoveLog.objects.filter(game__room=room).count() == moves


def test_without_a_seat_an_action_is_for_the_sessions_own_seat():
    room, host = family()
    while turn(room) == 0:  # make it a device player's turn
        services.game_action(room.code, host, version(room), {"type": "bid", "quantity": 1,
                                                              "face": 2}, 0)
    with pytest.raises(errors.RoomError) as refused:
        services.game_action(room.code, host, version(room), {"type": "challenge"})
    # The engine judged seat 0, not the seat whose turn it is.
    assert refused.value.code in ("not_your_turn", "illegal_action")


def test_the_phone_keeps_every_seat_it_plays_present():
    room, host = family()
    services.connection_opened(room.code, host)
    assert all(seat(room, i).connected for i in (0, 1, 2))
    services.connection_closed(room.code, host)
    assert not any(seat(room, i).connected for i in (0, 1, 2))
    assert all(seat(room, i).disconnected_at is not None for i in (0, 1, 2))


def test_timeouts_and_takeovers_count_per_seat_and_reclaim_names_the_seat():
    room, host = family()
    services.connection_opened(room.code, host)
    first = turn(room)
    counts = {0: 0, 1: 0, 2: 0}
    while seat(room, first).consecutive_timeouts < services.TIMEOUTS_FOR_TAKEOVER:
        # The phone's pings: every seat on it is here.
        services.seats_seen([(room.code, host.session_key)])
        game_row = services.current_game(room)
        clock.advance((game_row.deadline - clock.now()).total_seconds() + 0.1)
        # Count the timeouts themselves: a seat that reached three before
        # ``first`` is held, and a computer then plays its turns, no timeout.
        change = services.deadline_fire(game_row.id, game_row.seq)
        for event in change.events:
            if event["type"] == "timeout":
                counts[event["seat"]] += 1
        # Nine timeouts at most, each costing at most one die of fifteen: the game goes on.
        assert services.current_game(room).status == "in_progress"
        if seat(room, first).held:
            break
    held = seat(room, first)
    assert held.held and held.consecutive_timeouts == services.TIMEOUTS_FOR_TAKEOVER
    # The others' counts are their own.
    for other in {0, 1, 2} - {first}:
        assert seat(room, other).consecutive_timeouts == counts[other]
    services.seat_reclaim(room.code, host, first)
    assert not seat(room, first).held


def test_a_whole_pass_and_play_game_gives_a_record_that_replays():
    room, host = family()
    engine = get_game("liars_dice")
    for _ in range(500):
        game_row = services.current_game(room)
        if game_row.status != "in_progress":
            break
        mover = game_row.turn_seat
        legal = engine.legal_actions(services.load_state(game_row), mover)
        action = next((a for a in legal if a["type"] == "challenge"), legal[0])
        services.game_action(room.code, host, version(room), action, mover)
    game_row = services.current_game(room)
    assert game_row.status == "finished" and sorted(game_row.placings) == [0, 1, 2]
    record = services.game_record(game_row)
    check_shape(record)
    assert [s["name"] for s in record["seats"]] == ["Tanvir", "Rina", "মিতু"]
    result = replay(record)
    assert result.placings == game_row.placings and result.dice_checked > 0
    # The host's own games list only the host's seat, never the family's.
    played = selectors.player_games(session_key=host.session_key)
    assert [(p.game.id, p.seat) for p in played] == [(game_row.id, 0)]


def test_renaming_a_player_on_the_phone_leaves_the_hosts_nickname(moderator):  # noqa: F811
    store = SessionStore()
    store["nickname"] = "Tanvir"
    store.create()
    host = Actor(session_key=store.session_key, name="Tanvir")
    room = services.room_create(actor=host, game="liars_dice", seats=3)
    services.device_player_add(room.code, host, 1, "Rina")
    moderation.seat_rename(room.id, 1, moderator=moderator, reason="test")
    assert seat(room, 1).name != "Rina"
    assert SessionStore(session_key=store.session_key).load().get("nickname") == "Tanvir"


def test_the_phones_action_claim_counts_for_whichever_of_its_seats_has_the_turn():
    """The socket claims a turn by session (rooms.consumers): a phone that plays
    several seats holds the clock of the one whose turn it is, and only while
    that turn is one of its seats'."""
    room, host = family(seats=4)  # seat 3 is a computer
    while turn(room) == 0:  # a player on the phone, not the host, is to move
        services.game_action(room.code, host, version(room),
                             {"type": "bid", "quantity": 1, "face": 2}, 0)
    game_row = services.current_game(room)
    assert game_row.turn_seat in (1, 2)
    get_timer_backend().claim_action(room.id, host.session_key, version(room),
                                     game_row.deadline.timestamp() - 0.5)
    clock.advance((game_row.deadline - clock.now()).total_seconds() + 0.1)
    assert services.deadline_fire(game_row.id, game_row.seq) is None  # deferred
    assert seat(room, game_row.turn_seat).consecutive_timeouts == 0
    # Released (say, the action was refused): the clock runs again, for that seat.
    get_timer_backend().release_action(room.id, host.session_key)
    change = services.deadline_fire(game_row.id, game_row.seq)
    assert change.events[0] == {"type": "timeout", "seat": game_row.turn_seat}
