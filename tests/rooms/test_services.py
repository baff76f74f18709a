"""Room services: creating, joining, starting, playing, timing out, closing.

These call the services directly on the test database (SQLite). Publishing and
timer arming happen on commit, which these tests do not need to observe.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta

import pytest
from django.db import transaction

from games.fairness import die
from games.record import replay
from games.registry import declaration
from rooms import clock, codes, errors, rows, services, state
from rooms.models import Game, MoveLog, Room, Seat
from rooms.services import Actor
from tests.room_fixtures import paced_computers, person  # noqa: F401 - a fixture, by name

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("paced_computers")]


def new_room(game: str = "snakes", seats: int = 2, **kwargs) -> tuple[Room, Actor]:
    host = person("Tanvir")
    return services.room_create(actor=host, game=game, seats=seats, **kwargs), host


def started(game: str = "snakes", seats: int = 2, bots: int = 0, **kwargs):
    """A room in play: host, one guest, and ``bots`` computer players."""
    room, host = new_room(game, seats, **kwargs)
    guest = person("রুমি")
    services.seat_join(room.code, guest)
    for _ in range(bots):
        services.bot_add(room.code, host)
    services.game_start(room.code, host)
    room.refresh_from_db()
    return room, host, guest


def moves(room: Room) -> int:
    return MoveLog.objects.filter(game__room=room).count()


def act(room: Room, who: Actor, action: dict):
    room.refresh_from_db()
    return services.game_action(room.code, who, room.version, action)


def whose_turn(room: Room) -> int | None:
    return services.current_game(room).turn_seat


# ---- codes and names -------------------------------------------------------------


def test_codes_avoid_look_alike_letters():
    assert not set("ILO01") & set(codes.ALPHABET)
    for _ in range(300):
        code = codes.random_code()
        assert len(code) == 4 and set(code) <= set(codes.ALPHABET)
        assert codes.is_clean(code)


@pytest.mark.parametrize("typed,code", [("abcd", "ABCD"), (" ab cd ", "ABCD"),
                                        ("http://x/r/KHMT/", "KHMT"), ("ABC", ""),
                                        ("AB1D", ""), ("ABCI", "")])
def test_codes_are_case_insensitive_and_forgiving(typed, code):
    assert codes.normalize(typed) == code


@pytest.mark.parametrize("rude", ["FUCK", "XSEX", "CHOD", "RAPE", "GAND"])
def test_rude_words_are_never_codes(rude):
    assert not codes.is_clean(rude)


@pytest.mark.parametrize("name", ["রুমি", "Tanvir 2", "  Mitu  ", "তানভীর রহমান"])
def test_nicknames_accept_bengali_and_latin(name):
    room, _ = new_room()
    services.seat_join(room.code, Actor(uuid.uuid4().hex, name))
    assert Seat.objects.get(room=room, index=1).name == " ".join(name.split())


@pytest.mark.parametrize("name", ["", "   ", "x" * 21, "<b>hi</b>", "a\u200bb", "a\nb", "😀"])
def test_bad_nicknames_are_refused(name):
    from rooms.nicknames import BadNickname, clean_nickname

    with pytest.raises(BadNickname):
        clean_nickname(name)


# ---- rooms and seats -------------------------------------------------------------


def test_creating_a_room_seats_the_host_and_commits_to_a_server_seed():
    room, host = new_room("ludo", 4)
    seats = list(room.seats.all())
    assert [s.kind for s in seats] == ["human", "open", "open", "open"]
    assert seats[0].session_key == host.session_key
    seed = bytes.fromhex(room.next_server_seed)
    assert hashlib.sha256(seed).hexdigest() == room.next_server_seed_hash
    assert room.options == {"board": "square", "home_bonus_roll": True, "first_player": 0}


def test_five_ludo_players_use_the_hexagonal_board():
    room, _ = new_room("ludo", 5)
    assert room.options["board"] == "hex"


@pytest.mark.parametrize("game,seats", [("snakes", 5), ("ludo", 1), ("liars_dice", 7)])
def test_seat_counts_follow_the_game(game, seats):
    with pytest.raises(errors.BadMessage):
        new_room(game, seats)


def test_a_private_host_sets_house_rules():
    room, host = new_room("ludo", 2, options={"home_bonus_roll": False})
    assert room.options["home_bonus_roll"] is False
    services.options_set(room.code, host, {"home_bonus_roll": True}, "party")
    room.refresh_from_db()
    assert room.options["home_bonus_roll"] is True and room.pace == "party"
    assert room.turn_seconds == 30


def test_unknown_house_rules_are_refused():
    with pytest.raises(errors.BadMessage):
        new_room("ludo", 2, options={"triple_dice": True})


def test_joining_takes_the_lowest_free_seat_and_again_returns_the_same_seat():
    room, _ = new_room("ludo", 3)
    guest = person("রুমি")
    services.seat_join(room.code, guest)
    services.seat_join(room.code.lower(), guest)
    assert Seat.objects.filter(room=room, session_key=guest.session_key).get().index == 1
    assert Seat.objects.filter(room=room, kind="human").count() == 2


@pytest.mark.parametrize(("seat", "says"), [
    ("1", "A seat is given by its number, counted from 0"),  # a string: a number is meant
    (True, "A seat is given by its number, counted from 0"),
    (7, "There is no such seat"),
    (-1, "There is no such seat"),
])
def test_a_seat_asked_for_wrongly_is_refused_saying_how(seat, says):
    room, _ = new_room("ludo", 3)
    with pytest.raises(errors.BadMessage) as refused:
        services.seat_join(room.code, person("রুমি"), seat)
    assert refused.value.template == says
    assert Seat.objects.filter(room=room, kind="human").count() == 1


def lobby_with_a_friend_who_left(game: str = "ludo", seats: int = 3):
    """A private lobby: the host, and a friend in seat 1 whose page has closed."""
    room, host = new_room(game, seats)
    friend = person("রুমি")
    services.seat_join(room.code, friend, over_socket=True)
    services.connection_closed(room.code, friend)
    return room, host, friend


def test_the_host_frees_the_seat_of_a_friend_who_went_away_and_another_friend_sits():
    room, host, friend = lobby_with_a_friend_who_left()
    version = Room.objects.get(id=room.id).version
    change = services.seat_free(room.code, host, 1)
    assert change.events == [{"type": "left", "seat": 1}]
    seat = Seat.objects.get(room=room, index=1)
    assert (seat.kind, seat.session_key, seat.name) == ("open", "", "")
    assert Room.objects.get(id=room.id).version == version + 1
    services.seat_join(room.code, person("Mitu"), 1)
    assert Seat.objects.get(room=room, index=1).name == "Mitu"


def test_a_friend_whose_page_went_silent_counts_as_away_and_can_be_freed():
    room, host = new_room("ludo", 3)
    friend = person("রুমি")
    services.seat_join(room.code, friend, over_socket=True)  # the socket never closes
    with pytest.raises(errors.WrongStatus):
        services.seat_free(room.code, host, 1)
    clock.advance(Seat.SILENT_AFTER_SECONDS + 1)
    services.seat_free(room.code, host, 1)
    assert Seat.objects.get(room=room, index=1).kind == "open"


def test_a_friend_who_is_here_keeps_the_seat_and_is_told_by_name():
    room, host = new_room("ludo", 3)
    services.seat_join(room.code, person("রুমি"), over_socket=True)
    version = Room.objects.get(id=room.id).version
    with pytest.raises(errors.WrongStatus) as refused:
        services.seat_free(room.code, host, 1)
    assert "রুমি" in refused.value.message
    assert Seat.objects.get(room=room, index=1).name == "রুমি"
    assert Room.objects.get(id=room.id).version == version


@pytest.mark.parametrize(("seat", "error"), [
    (0, errors.BadMessage),  # the host's own
    (2, errors.BadMessage),  # a computer
    (3, errors.BadMessage),  # open
    (9, errors.BadMessage),
    ("1", errors.BadMessage),
    (True, errors.BadMessage),
    (None, errors.BadMessage),
])
def test_freeing_a_seat_that_holds_no_away_friend_is_refused_and_changes_nothing(seat, error):
    room, host, friend = lobby_with_a_friend_who_left("ludo", 4)
    services.bot_add(room.code, host, 2)
    version = Room.objects.get(id=room.id).version
    with pytest.raises(error):
        services.seat_free(room.code, host, seat)
    assert Room.objects.get(id=room.id).version == version
    assert [s.kind for s in Seat.objects.filter(room=room).order_by("index")] == [
        "human", "human", "bot", "open"]


def test_only_the_host_frees_a_seat_and_only_in_a_private_lobby():
    room, host, friend = lobby_with_a_friend_who_left()
    with pytest.raises(errors.NotHost):
        services.seat_free(room.code, person("Mitu"), 1)
    services.bot_add(room.code, host, 2)
    services.game_start(room.code, host)
    with pytest.raises(errors.WrongStatus):
        services.seat_free(room.code, host, 1)
    public_host = person("Host")
    public = services.play_now(actor=public_host, game="snakes")
    services.seat_join(public.code, person("Stranger"))  # over HTTP: not connected yet
    assert Seat.objects.get(room=public, index=0).session_key == public_host.session_key
    with pytest.raises(errors.WrongStatus):
        services.seat_free(public.code, public_host, 1)
    assert Seat.objects.get(room=public, index=1).kind == "human"


def test_a_phone_player_is_removed_as_such_not_freed():
    room, host = new_room("ludo", 3)
    services.device_player_add(room.code, host, None, "Mitu")
    services.connection_closed(room.code, host)
    with pytest.raises(errors.BadMessage):
        services.seat_free(room.code, host, 1)
    assert Seat.objects.get(room=room, index=1).on_device


def test_a_full_room_says_so():
    room, _ = new_room()
    services.seat_join(room.code, person("A"))
    with pytest.raises(errors.RoomFull):
        services.seat_join(room.code, person("B"))


def test_unknown_code_is_not_found():
    with pytest.raises(errors.NotFound):
        services.seat_join("ZZZZ", person())


def test_only_the_host_adds_computers_and_starts():
    room, host = new_room("ludo", 3)
    guest = person("G")
    services.seat_join(room.code, guest)
    with pytest.raises(errors.NotHost):
        services.bot_add(room.code, guest)
    with pytest.raises(errors.WrongStatus):
        services.game_start(room.code, host)  # an open seat remains
    services.bot_add(room.code, host)
    with pytest.raises(errors.NotHost):
        services.game_start(room.code, guest)
    services.game_start(room.code, host)
    assert Room.objects.get(id=room.id).status == "playing"


def test_start_fixes_the_client_seed_from_the_browsers_and_renews_the_commitment():
    room, host = new_room()
    guest = person("G")
    services.seat_join(room.code, guest, client_seed="guestseed")
    services.seat_seed(room.code, host, "hostseed")
    committed = room.next_server_seed_hash
    services.game_start(room.code, host)
    room.refresh_from_db()
    game_row = services.current_game(room)
    assert game_row.client_seed == "hostseed.guestseed"
    assert game_row.server_seed_hash == committed
    assert room.next_server_seed_hash != committed


def test_a_bad_client_seed_is_refused():
    room, host = new_room()
    with pytest.raises(errors.BadMessage):
        services.seat_seed(room.code, host, "no spaces allowed")


# ---- playing ---------------------------------------------------------------------


def test_a_roll_uses_the_fair_dice_and_ignores_dice_a_client_sends():
    room, host, guest = started()
    game_row = services.current_game(room)
    act(room, host, {"type": "roll", "dice": [6]})
    first = MoveLog.objects.filter(game=game_row).order_by("seq").first().event
    expected = die(bytes.fromhex(game_row.server_seed), game_row.client_seed, 0)
    assert first == {"type": "roll", "seat": 0, "value": expected}


def test_a_stale_version_changes_nothing():
    room, host, _ = started()
    before = (moves(room), room.version)
    with pytest.raises(errors.StaleVersion):
        services.game_action(room.code, host, room.version - 1, {"type": "roll"})
    room.refresh_from_db()
    assert (moves(room), room.version) == before


def test_out_of_turn_and_illegal_actions_change_nothing():
    room, host, guest = started()
    before = (moves(room), room.version)
    with pytest.raises(errors.NotYourTurn):
        act(room, guest, {"type": "roll"})
    with pytest.raises(errors.IllegalAction):
        act(room, host, {"type": "bid", "quantity": 1, "face": 2})
    with pytest.raises(errors.BadMessage):
        act(room, host, ["roll"])
    room.refresh_from_db()
    assert (moves(room), room.version) == before


def test_spectators_cannot_play():
    room, _, _ = started()
    with pytest.raises(errors.NotSeated):
        act(room, person("watcher"), {"type": "roll"})


def test_liars_dice_errors_name_the_player():
    room, host, guest = started("liars_dice", 2)
    act(room, host, {"type": "bid", "quantity": 2, "face": 3})
    with pytest.raises(errors.NotYourTurn) as refused:
        act(room, host, {"type": "challenge"})
    assert "রুমি" in refused.value.message


def test_each_seat_sees_only_its_own_dice():
    room, host, guest = started("liars_dice", 3, bots=1)
    record = services.game_record(services.current_game(room))
    deal = next(e for e in record["events"] if e["type"] == "round")
    for who, seat in ((host, 0), (guest, 1)):
        view = services.snapshot_for(room.code, who.session_key)["game"]["view"]
        assert view["my_dice"] == deal["dice"][str(seat)]
    spectator = services.snapshot_for(room.code, "nobody")["game"]["view"]
    assert spectator["my_dice"] is None


def test_a_whole_game_against_a_computer_gives_a_record_that_replays(settings):
    settings.KHELAGHOR_BOT_DELAY = 0  # the computer plays within the same command
    room, host = new_room("snakes", 2)
    services.bot_add(room.code, host)
    services.game_start(room.code, host)
    for _ in range(2000):
        room.refresh_from_db()
        if room.status == "finished":
            break
        act(room, host, {"type": "roll"})
    game_row = services.current_game(room)
    assert game_row.status == "finished" and sorted(game_row.placings) == [0, 1]
    record = services.game_record(game_row)
    seqs = list(MoveLog.objects.filter(game=game_row).values_list("seq", flat=True))
    assert seqs == list(range(len(seqs)))
    result = replay(record)
    assert result.placings == game_row.placings and result.dice_checked > 0
    # Rematch: same room, same seats, a new commitment.
    services.game_start(room.code, host)
    second = services.current_game(room)
    assert second.number == 2 and second.server_seed_hash != game_row.server_seed_hash


def test_state_is_rebuilt_from_the_move_log_alone():
    room, host, guest = started("ludo", 2)
    act(room, host, {"type": "roll"})
    game_row = services.current_game(room)
    cached = services.load_state(game_row)
    services.forget_cached_states()
    assert services.load_state(game_row) == cached


def test_a_state_cached_moves_behind_is_moved_on_by_the_log(django_capture_on_commit_callbacks):
    room, host, guest = started("snakes", 2)
    with django_capture_on_commit_callbacks(execute=True):
        act(room, host, {"type": "roll"})
    cached_seq, _ = state._STATE_CACHE[services.current_game(room).id]
    # Another process plays the next moves (this test database never commits,
    # so this process's cache stays where it was).
    for _ in range(3):
        act(room, host if whose_turn(room) == 0 else guest, {"type": "roll"})
    game_row = services.current_game(room)
    assert cached_seq < game_row.seq
    moved_on = services.load_state(game_row)
    services.forget_cached_states()
    assert moved_on == services.load_state(game_row)


def test_the_lock_reads_the_moves_another_process_logged(django_capture_on_commit_callbacks,
                                                          monkeypatch):
    """A move after moves served elsewhere reads them with the room's lock, in
    the same round trip, not in a read of its own (rooms.rows.lock_room)."""
    room, host, guest = started("snakes", 2)
    with django_capture_on_commit_callbacks(execute=True):
        act(room, host, {"type": "roll"})
    cached_seq, _ = state._STATE_CACHE[services.current_game(room).id]
    for _ in range(3):  # "another process": this test's transaction never commits
        act(room, host if whose_turn(room) == 0 else guest, {"type": "roll"})
    behind = services.current_game(room).seq
    assert cached_seq < behind

    def no_separate_read(*args):
        raise AssertionError("the moves since the cached state were read on their own")

    monkeypatch.setattr(rows, "events_between", no_separate_read)
    with django_capture_on_commit_callbacks(execute=True):
        act(room, host if whose_turn(room) == 0 else guest, {"type": "roll"})
    game_row = services.current_game(room)
    assert state._STATE_CACHE[game_row.id][0] == game_row.seq > behind
    moved_on = state._STATE_CACHE[game_row.id][1]
    monkeypatch.undo()
    services.forget_cached_states()
    assert moved_on == services.load_state(game_row)


def test_a_rolled_back_move_leaves_no_state_behind():
    room, host, guest = started("snakes", 2)
    game_row = services.current_game(room)

    class Interrupted(Exception):
        pass

    with pytest.raises(Interrupted), transaction.atomic():
        act(room, host, {"type": "roll"})
        raise Interrupted
    assert game_row.id not in state._STATE_CACHE
    assert services.current_game(room).seq == game_row.seq


# ---- timeouts and held seats ------------------------------------------------------


def fire(room: Room) -> services.Change | None:
    """Move the clock past the pending deadline and let the timer fire."""
    game_row = services.current_game(room)
    clock.advance(max(0.0, (game_row.deadline - clock.now()).total_seconds() + 0.1))
    return services.deadline_fire(game_row.id, game_row.seq)


def test_a_timeout_acts_for_the_player_and_says_so():
    room, host, guest = started()
    change = fire(room)
    assert change.events[0] == {"type": "timeout", "seat": 0}
    assert change.events[1]["type"] == "roll" and change.events[1]["seat"] == 0


def test_a_deadline_fires_once():
    room, host, guest = started()
    game_row = services.current_game(room)
    seq = game_row.seq
    clock.advance(16)
    assert services.deadline_fire(game_row.id, seq) is not None
    assert services.deadline_fire(game_row.id, seq) is None  # a duplicate claim
    timeouts = [e for e in MoveLog.objects.filter(game=game_row).values_list("event", flat=True)
                if e["type"] == "timeout"]
    assert len(timeouts) == 1


def test_a_deadline_claimed_early_does_nothing():
    room, host, guest = started()
    game_row = services.current_game(room)
    assert services.deadline_fire(game_row.id, game_row.seq) is None
    assert moves(room) == 0


def test_three_timeouts_in_a_row_hand_the_seat_to_a_computer():
    room, host, guest = started("liars_dice", 2)
    timeouts = 0
    for _ in range(40):
        if whose_turn(room) == 1:
            act(room, guest, _some_liars_action(room, guest))
            continue
        change = fire(room)
        timeouts += 1
        if any(e["type"] == "takeover" for e in change.events):
            break
    assert timeouts == 3
    seat = Seat.objects.get(room=room, index=0)
    assert seat.held and seat.consecutive_timeouts == 3
    assert services.current_game(room).deadline_kind in ("bot", "human")


def _some_liars_action(room, who):
    legal = services.snapshot_for(room.code, who.session_key)["game"]["legal"]
    return legal[0]


def test_acting_resets_the_timeout_count():
    room, host, guest = started()
    fire(room)  # host times out once; the roll is made for them
    while whose_turn(room) == 0:
        fire(room)
    assert Seat.objects.get(room=room, index=0).consecutive_timeouts >= 1
    act(room, guest, {"type": "roll"})
    while whose_turn(room) == 1:
        act(room, guest, {"type": "roll"})
    act(room, host, {"type": "roll"})
    assert Seat.objects.get(room=room, index=0).consecutive_timeouts == 0


def test_one_timeout_after_45_seconds_away_hands_the_seat_over():
    room, host, guest = started()
    services.connection_opened(room.code, host)
    services.connection_closed(room.code, host)
    clock.advance(46)
    change = fire(room)
    assert [e["type"] for e in change.events[:2]] == ["timeout", "takeover"]
    assert Seat.objects.get(room=room, index=0).held


def test_the_operators_log_tells_of_timeouts_takeovers_and_seats_taken_back(
        caplog, django_capture_on_commit_callbacks):
    room, host, guest = started()
    services.connection_opened(room.code, host)
    services.connection_closed(room.code, host)
    clock.advance(46)
    with caplog.at_level("INFO", logger="rooms.services.play"):
        with django_capture_on_commit_callbacks(execute=True):
            game_id = fire(room).game_row.id
        with django_capture_on_commit_callbacks(execute=True):
            services.seat_reclaim(room.code, host)
    lines = [r.getMessage() for r in caplog.records if r.name == "rooms.services.play"]
    assert lines == [
        f"room {room.code} game {game_id}: seat 0 timed out (1 in a row, away);"
        " a computer holds the seat",
        f"room {room.code} game {game_id}: seat 0 taken back from the computer",
    ]
    assert host.name not in " ".join(lines)  # seats are numbered, never named


def test_closes_of_one_room_are_written_together_each_tab_counted():
    """A stopping server's batch for one room: the host's two tabs and the
    guest's page. Every connection is taken off, and one version tells the
    room both seats went offline."""
    room, host, guest = started()
    for actor in (host, host, guest):
        services.connection_opened(room.code, actor)
    version = Room.objects.get(pk=room.pk).version
    services.connections_closed(room.code, [host, guest])
    assert [(s.connections, s.connected) for s in Seat.objects.filter(room=room).order_by("index")
            ] == [(1, True), (0, False)]
    assert Room.objects.get(pk=room.pk).version == version + 1
    services.connections_closed(room.code, [host])
    assert Seat.objects.get(room=room, index=0).disconnected_at is not None
    assert Room.objects.get(pk=room.pk).version == version + 2
    services.connections_closed("ZZZZ", [host])  # a room gone meanwhile: nothing to write


def test_a_short_absence_is_just_a_timeout():
    room, host, guest = started()
    services.connection_opened(room.code, host)
    services.connection_closed(room.code, host)
    change = fire(room)  # 15 s < 45 s away
    assert "takeover" not in [e["type"] for e in change.events]


def test_the_player_takes_the_seat_back_at_once_even_mid_turn():
    room, host, guest = started()
    services.seat_leave(room.code, host)  # mid-game: a computer holds the seat
    assert Seat.objects.get(room=room, index=0).held
    assert services.current_game(room).deadline_kind == "bot"
    services.seat_reclaim(room.code, host)
    seat = Seat.objects.get(room=room, index=0)
    assert not seat.held
    game_row = services.current_game(room)
    assert game_row.turn_seat == 0 and game_row.deadline_kind == "human"


def test_any_action_also_reclaims_the_seat():
    room, host, guest = started()
    services.seat_leave(room.code, host)
    change = act(room, host, {"type": "roll"})
    assert change.events[0] == {"type": "reclaim", "seat": 0}
    assert not Seat.objects.get(room=room, index=0).held


def test_a_refused_action_still_takes_the_seat_back_with_a_humans_deadline():
    room, host, guest = started("liars_dice", 2)
    services.seat_leave(room.code, host)
    change = act(room, host, {"type": "bid", "quantity": 99, "face": 2})
    assert isinstance(change.refusal, errors.IllegalAction)
    assert change.events == [{"type": "reclaim", "seat": 0}]
    seat = Seat.objects.get(room=room, index=0)
    game_row = services.current_game(room)
    assert not seat.held
    assert game_row.turn_seat == 0 and game_row.deadline_kind == "human"


def test_a_held_seat_plays_as_a_computer_when_its_deadline_comes():
    room, host, guest = started()
    services.seat_leave(room.code, host)
    change = fire(room)
    assert "timeout" not in [e["type"] for e in change.events]
    first = change.events[0]
    assert (first["type"], first["seat"]) == ("roll", 0)


# ---- quick play, closing, expiry --------------------------------------------------


def test_quick_play_fills_a_waiting_public_table_then_starts_with_computers():
    first, second = person("A"), person("B")
    room = services.play_now(actor=first, game="ludo")
    assert services.play_now(actor=second, game="ludo").id == room.id
    assert services.room_autostart(room.id) is None  # not yet
    clock.advance(services.QUICK_PLAY_WAIT + 1)
    services.room_autostart(room.id)
    room.refresh_from_db()
    assert room.status == "playing" and room.visibility == "public"
    assert [s.kind for s in room.seats.order_by("index")] == ["human", "human", "bot", "bot"]


def test_quick_play_at_the_party_pace_is_a_pool_of_its_own():
    first, second, third = person("A"), person("B"), person("C")
    normal = services.play_now(actor=first, game="ludo")
    party = services.play_now(actor=second, game="ludo", pace="party")
    assert party.id != normal.id and (party.pace, normal.pace) == ("party", "normal")
    assert party.visibility == "public"
    assert services.play_now(actor=third, game="ludo", pace="party").id == party.id
    # An unknown pace is refused and seats nobody.
    seats = Seat.objects.filter(kind="human").count()
    with pytest.raises(errors.BadMessage):
        services.play_now(actor=person("D"), game="ludo", pace="fast")
    assert Seat.objects.filter(kind="human").count() == seats


def test_a_seated_quick_player_starts_at_once_with_computers_in_the_empty_seats():
    first, second = person("A"), person("B")
    room = services.play_now(actor=first, game="snakes")
    services.play_now(actor=second, game="snakes")
    room.refresh_from_db()
    version = room.version
    change = services.room_start_now(room.code, second)  # any seated player, not only seat 0
    assert [e["type"] for e in change.events][:1] == ["started"]
    room.refresh_from_db()
    assert room.status == "playing" and room.autostart_at is None
    assert room.version == version + 1
    assert [s.kind for s in room.seats.order_by("index")] == ["human", "human", "bot", "bot"]
    # The automatic start that was armed finds nothing left to do.
    clock.advance(services.QUICK_PLAY_WAIT + 1)
    assert services.room_autostart(room.id) is None


def test_start_now_is_refused_out_of_place_and_changes_nothing():
    quick = services.play_now(actor=person("A"), game="ludo")
    private, host = new_room("ludo", 4)
    cases = [
        (quick, person("Stranger"), errors.NotSeated),      # not seated at the table
        (private, host, errors.WrongStatus),                # a private table: the host starts it
    ]
    for room, who, refusal in cases:
        room.refresh_from_db()
        before = (room.version, [s.kind for s in room.seats.order_by("index")])
        with pytest.raises(refusal) as caught:
            services.room_start_now(room.code, who)
        assert caught.value.message
        room.refresh_from_db()
        assert (room.version, [s.kind for s in room.seats.order_by("index")]) == before
        assert room.status == "lobby"
    # Once playing, a second "start now" is refused too.
    seated = Actor(quick.seats.get(index=0).session_key, "A", None)
    services.room_start_now(quick.code, seated)
    quick.refresh_from_db()
    version = quick.version
    with pytest.raises(errors.WrongStatus):
        services.room_start_now(quick.code, seated)
    quick.refresh_from_db()
    assert quick.version == version and quick.games.count() == 1


def test_closing_a_room_aborts_its_game_and_frees_the_code():
    room, host, guest = started()
    services.room_close(room.id, reason="Closed by a moderator")
    room.refresh_from_db()
    assert room.status == "closed" and room.closed_reason == "Closed by a moderator"
    assert services.current_game(room).status == Game.Status.ABORTED
    with pytest.raises(errors.NotFound):
        services.room_get(room.code)
    again = Room.objects.create(code=room.code, game="snakes", next_server_seed="00",
                                next_server_seed_hash="00")
    assert again.code == room.code


def test_idle_rooms_expire():
    room, _ = new_room()
    Room.objects.filter(id=room.id).update(last_activity=clock.now() - timedelta(hours=3))
    assert services.rooms_expire() == 1
    assert Room.objects.get(id=room.id).status == "closed"


def test_a_silent_seat_counts_as_away_even_if_its_socket_never_said_goodbye():
    """A killed server process leaves the connection count up; pings stop, so
    after a while the seat is away and one timeout hands it over."""
    room, host, guest = started()
    services.connection_opened(room.code, host)  # ...and the process dies
    clock.advance(services.AWAY_FOR_TAKEOVER + 1)
    assert not Seat.objects.get(room=room, index=0).connected
    change = fire(room)
    assert [e["type"] for e in change.events[:2]] == ["timeout", "takeover"]


def test_pings_keep_a_seat_present():
    room, host, guest = started()
    services.connection_opened(room.code, host)
    clock.advance(Seat.SILENT_AFTER_SECONDS - 10)
    services.seats_seen([(room.code, host.session_key)])
    clock.advance(20)
    assert Seat.objects.get(room=room, index=0).connected


def test_a_ping_renews_only_the_pinging_players_seat_and_never_in_a_closed_room():
    room, host, guest = started()
    before = {s.index: s.last_seen for s in Seat.objects.filter(room=room)}
    clock.advance(30)
    services.seats_seen([(room.code.lower(), guest.session_key)])
    after = {s.index: s.last_seen for s in Seat.objects.filter(room=room)}
    assert after[0] == before[0] and after[1] > (before[1] or clock.now() - timedelta(days=1))
    services.room_close(room.id, reason="Closed by a moderator")
    clock.advance(30)
    services.seats_seen([(room.code, guest.session_key)])
    assert Seat.objects.get(room=room, index=1).last_seen == after[1]


@pytest.mark.slow  # whole games checked move by move: `make test`, not `make check`
@pytest.mark.parametrize("game,seats,kind", [
    ("snakes", 3, None), ("liars_dice", 3, None), ("liars_dice", 3, "search"),
    ("ludo", 2, None), ("ludo", 5, None),
])
def test_room_records_pass_the_independent_checker(
    settings, game, seats, kind, django_capture_on_commit_callbacks
):
    """A game played through the room layer — a human acting from their view,
    computers (the standard kind, or the expert one a host may choose) in the
    other seats, a timeout and a takeover on the way — leaves a record that the
    independent checker and our replayer both accept."""
    import random

    from games.bots import make_bot
    from tests.reference_checker import check

    def committed(command, *args):
        # Each command's on-commit work runs as it would after a real commit
        # (the broadcast to nobody, a timer armed in a heap nobody polls, and the
        # state cached at its seq), so the next command moves the cached state on
        # by its own events instead of replaying the whole log: without it a
        # five-seat Ludo game (~1600 decisions) replays ~600 times.
        with django_capture_on_commit_callbacks(execute=True):
            return command(*args)

    settings.KHELAGHOR_BOT_DELAY = 0
    room, host = new_room(game, seats)
    for _ in range(seats - 1):
        services.bot_add(room.code, host, None, kind)
    committed(services.game_start, room.code, host)
    bot, rng = make_bot(game, "random"), random.Random(3)
    committed(fire, room)  # one timeout on the way
    for _ in range(5000):
        room.refresh_from_db()
        if room.status == "finished":
            break
        game_json = services.snapshot_for(room.code, host.session_key)["game"]
        if game_json["legal"]:
            committed(act, room, host, bot.choose(game_json["view"], game_json["legal"], rng))
        else:
            committed(fire, room)  # a held seat or a computer with a pause
    record = services.game_record(services.current_game(room))
    assert record["status"] == "finished"
    assert any(e["type"] == "timeout" for e in record["events"])
    assert check(record) is None, check(record)
    assert replay(record).placings == record["placings"]
    computers = [s.get("bot") for s in record["seats"][1:]]
    assert computers == [kind or declaration(game).standard_bot] * (seats - 1), computers


def test_a_broadcast_failure_after_commit_does_not_undo_or_fail_the_move(
    monkeypatch, django_capture_on_commit_callbacks
):
    """Redis blinks after the move committed: the move stands and the player is
    not told it failed (pages resync on the next version; the sweep re-arms)."""
    from rooms import publish

    room, host, guest = started()

    def redis_down(*args, **kwargs):
        raise ConnectionError("Redis is restarting")

    monkeypatch.setattr(publish, "room_changed", redis_down)
    monkeypatch.setattr(publish, "arm_game", redis_down)
    before = moves(room)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        act(room, host, {"type": "roll"})
    assert callbacks and moves(room) > before


@pytest.mark.parametrize(("name", "reason"), [
    ("\u09cd" * 20, "at least one letter or digit"),  # twenty viramas draw nothing
    ("\u09be\u09bf", "at least one letter or digit"),  # vowel signs alone
    ("\u200c\u200d", "invisible characters"),  # zero-width non-joiner and joiner
    ("ক\u200bখ", "invisible characters"),  # a zero-width space inside
    ("a\u00a0b", "invisible characters"),  # a no-break space looks like a space
    ("রুমি \u09bf", "must follow a letter"),  # a vowel sign on a space
    ("\u09cdকখ", "must follow a letter"),
])
def test_nicknames_that_look_blank_are_refused_with_a_reason(name, reason):
    from django.utils import translation

    from rooms.nicknames import BadNickname, clean_nickname

    with translation.override("en"), pytest.raises(BadNickname, match=reason):
        clean_nickname(name)


def test_a_refused_nickname_says_why_in_bengali_first(client):
    response = client.post("/nickname/", {"name": "\u09cd" * 20}, follow=True)
    assert "ডাকনামে অন্তত একটা অক্ষর বা সংখ্যা থাকতে হবে" in response.content.decode()
    assert "nickname" not in client.session
    # The longest name, in the page's digits (it came filled with "20").
    response = client.post("/nickname/", {"name": "x" * 21}, follow=True)
    assert "ডাকনামে সর্বোচ্চ ২০টি অক্ষর থাকতে পারে" in response.content.decode()


@pytest.mark.parametrize("name", ["রুমি", "কৃষ্ণ", "Tanvir 2", "শ্রী", "৳ রুমি", "অ"])
def test_real_names_with_marks_on_letters_are_kept(name):
    from rooms.nicknames import clean_nickname

    assert clean_nickname(name) == name


def test_a_friend_takes_the_place_of_a_host_who_went_away_and_can_start():
    room, host = new_room("ludo", 3)
    friend = person("রুমি")
    services.seat_join(room.code, friend, None, "friend-seed", over_socket=True)
    services.connection_opened(room.code, host)
    services.connection_closed(room.code, host)  # the host's page closed
    change = services.host_take(room.code, friend)
    assert change.events == [{"type": "host", "seat": 0, "from": 1}]
    seats = list(Seat.objects.filter(room=room).order_by("index"))
    assert (seats[0].session_key, seats[0].name, seats[0].client_seed) == (
        friend.session_key, "রুমি", "friend-seed")
    assert seats[0].connected
    assert (seats[1].session_key, seats[1].name, seats[1].connected) == (
        host.session_key, "Tanvir", False)
    # The new host runs the table: frees the old host's seat, seats a computer, starts.
    services.seat_free(room.code, friend, 1)
    services.bot_add(room.code, friend)
    services.bot_add(room.code, friend)
    services.game_start(room.code, friend)
    assert Room.objects.get(id=room.id).status == "playing"


def test_after_the_results_a_friend_takes_the_place_of_a_host_who_left_and_rematches(settings):
    settings.KHELAGHOR_BOT_DELAY = 0  # the computer plays within the same command
    # A board whose one ladder climbs from the entry square to 100: the first 6 wins.
    room, host = new_room("snakes", 2, options={"board": {"ladders": {"6": 100}, "snakes": {}}})
    friend = person("রুমি")
    services.seat_join(room.code, friend, over_socket=True)
    services.game_start(room.code, host)
    with pytest.raises(errors.WrongStatus):
        services.host_take(room.code, friend)  # not during the game
    services.seat_leave(room.code, host)  # "Leave the game": a computer holds seat 0
    for _ in range(500):
        room.refresh_from_db()
        if room.status == "finished":
            break
        if whose_turn(room) == 1:
            act(room, friend, {"type": "roll"})
        else:
            fire(room)  # the computer's turn in the host's seat
    assert room.status == "finished"
    change = services.host_take(room.code, friend)
    assert change.events == [{"type": "host", "seat": 0, "from": 1}]
    seats = list(Seat.objects.filter(room=room).order_by("index"))
    assert (seats[0].session_key, seats[0].held) == (friend.session_key, False)
    assert (seats[1].session_key, seats[1].held) == (host.session_key, True)
    services.game_start(room.code, friend)  # the rematch is the new host's
    assert Room.objects.get(id=room.id).status == "playing"


def test_a_host_who_is_here_stays_the_host():
    room, host = new_room("ludo", 3)
    friend = person("রুমি")
    services.seat_join(room.code, friend, over_socket=True)
    services.connection_opened(room.code, host)
    version = Room.objects.get(id=room.id).version
    with pytest.raises(errors.WrongStatus) as refused:
        services.host_take(room.code, friend)
    assert "Tanvir" in refused.value.message
    with pytest.raises(errors.NotSeated):
        services.host_take(room.code, person("Mitu"))
    with pytest.raises(errors.BadMessage):
        services.host_take(room.code, host)
    assert Room.objects.get(id=room.id).version == version
    assert Seat.objects.get(room=room, index=0).session_key == host.session_key


def test_the_host_is_not_taken_with_phone_players_at_the_table_nor_after_the_start():
    room, host = new_room("ludo", 4)
    friend = person("রুমি")
    services.seat_join(room.code, friend, over_socket=True)
    services.device_player_add(room.code, host, None, "Mitu")
    with pytest.raises(errors.WrongStatus):
        services.host_take(room.code, friend)  # the host was never connected: away
    services.device_player_remove(room.code, host, 2)
    services.bot_add(room.code, host)
    services.bot_add(room.code, host)
    services.game_start(room.code, host)
    with pytest.raises(errors.WrongStatus):
        services.host_take(room.code, friend)
    assert Seat.objects.get(room=room, index=0).session_key == host.session_key
