"""The turn clocks pause while no server ran them (``services.clocks_beat``).

Every process's ticker renews the site's beat about every second; a gap longer
than KHELAGHOR_CLOCKS_PAUSE_AFTER means every server was down (or the database
away), and every clock moves on by the gap instead of firing at the restart.
These call the service directly on the test database, with the pause turned on.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from rooms import clock, services
from rooms.models import Game, MoveLog, Room, Seat, SiteClock
from tests.room_fixtures import paced_computers, person  # noqa: F401 - a fixture, by name

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("paced_computers")]

OUTAGE = timedelta(minutes=3)


@pytest.fixture(autouse=True)
def _pause_on_and_fresh_clock(settings):
    settings.KHELAGHOR_BOT_DELAY = 0
    settings.KHELAGHOR_CLOCKS_PAUSE_AFTER = 10.0
    clock.reset()
    yield
    clock.reset()


def playing_room():
    """Two humans in a Snakes game, the host to roll, the guest's page open."""
    host, guest = person("Tanvir"), person("রুমি")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    services.connection_opened(room.code, guest)
    return Room.objects.get(id=room.id), host, guest


def lobby_room():
    """A quick-play table waiting for players, its countdown running."""
    room = services.play_now(actor=person("Mitu"), game="ludo")
    return Room.objects.get(id=room.id)


def clocks(room_ids):
    """Every clock of these rooms, by what it is."""
    out = {}
    for room in Room.objects.filter(id__in=room_ids):
        out[f"{room.code} activity"] = room.last_activity
        if room.autostart_at:
            out[f"{room.code} autostart"] = room.autostart_at
        if room.current_game_id:
            out[f"{room.code} deadline"] = Game.objects.get(id=room.current_game_id).deadline
        for seat in Seat.objects.filter(room=room):
            if seat.last_seen:
                out[f"{room.code} seat {seat.index} seen"] = seat.last_seen
    return out


def beat_long_ago(gap: timedelta) -> None:
    SiteClock.objects.update_or_create(pk=1, defaults={"beat": clock.now() - gap})


def test_after_an_outage_every_clock_moves_on_by_the_gap():
    room, host, guest = playing_room()
    waiting = lobby_room()
    assert waiting.autostart_at is not None, "a quick-play table counts down"
    before = clocks([room.id, waiting.id])
    beat_long_ago(OUTAGE)

    paused = services.clocks_beat()

    assert OUTAGE.total_seconds() <= paused < OUTAGE.total_seconds() + 5
    after = clocks([room.id, waiting.id])
    assert after.keys() == before.keys()
    assert {k: after[k] - before[k] for k in before} == {
        k: timedelta(seconds=paused) for k in before
    }
    assert SiteClock.objects.get(pk=1).beat >= clock.now() - timedelta(seconds=5)
    # Renewed: the next beat, a second later, pauses nothing.
    assert services.clocks_beat() == 0.0
    assert clocks([room.id, waiting.id]) == after


def test_a_deadline_that_fell_due_during_the_outage_waits_the_gap_out():
    room, host, guest = playing_room()
    game_row = services.current_game(room)
    old_deadline = game_row.deadline
    beat_long_ago(OUTAGE)
    paused = services.clocks_beat()

    # The timer armed for the old deadline wakes: early now, so it re-arms.
    clock.advance((old_deadline - clock.now()).total_seconds() + 1)
    assert services.deadline_fire(game_row.id, game_row.seq) is None
    assert not MoveLog.objects.filter(game=game_row, seq=game_row.seq).exists()
    # The host still has the turn, and it times out only after the gap.
    clock.advance(paused)
    change = services.deadline_fire(game_row.id, game_row.seq)
    assert change.events[0] == {"type": "timeout", "seat": 0}


def test_the_away_rule_does_not_count_the_outage():
    room, host, guest = playing_room()
    guest_seat = Seat.objects.get(room=room, index=1)
    services.connection_closed(room.code, guest)  # the guest's page lost the server
    guest_seat.refresh_from_db()
    gone_at = guest_seat.disconnected_at
    beat_long_ago(OUTAGE)
    services.clocks_beat()
    guest_seat.refresh_from_db()
    # Away for as long as the site ran without them, not for the outage too.
    assert guest_seat.away_seconds(clock.now()) < (clock.now() - gone_at).total_seconds() - 170


@pytest.mark.parametrize("gap", [timedelta(seconds=5), timedelta(hours=3)])
def test_a_short_gap_or_one_too_long_to_be_an_outage_moves_nothing(gap):
    room, host, guest = playing_room()
    before = clocks([room.id])
    beat_long_ago(gap)
    assert services.clocks_beat() == 0.0
    assert clocks([room.id]) == before
    assert SiteClock.objects.get(pk=1).beat >= clock.now() - timedelta(seconds=5)


def test_a_beat_from_a_clock_ahead_is_not_moved_back():
    beat_long_ago(-timedelta(seconds=30))  # another machine's clock runs ahead
    ahead = SiteClock.objects.get(pk=1).beat
    assert services.clocks_beat() == 0.0
    assert SiteClock.objects.get(pk=1).beat == ahead


def test_the_first_beat_ever_and_a_pause_turned_off(settings):
    room, host, guest = playing_room()
    before = clocks([room.id])
    assert services.clocks_beat() == 0.0  # no beat before it: nothing to measure
    assert SiteClock.objects.count() == 1
    settings.KHELAGHOR_CLOCKS_PAUSE_AFTER = 0.0
    beat_long_ago(OUTAGE)
    assert services.clocks_beat() == 0.0
    assert clocks([room.id]) == before


def test_the_usual_beat_is_one_statement_and_moves_the_beat_on(django_assert_num_queries):
    """Every process beats every second: after a recent beat, one UPDATE."""
    beat_long_ago(timedelta(seconds=1))
    before = SiteClock.objects.get(pk=1).beat
    with django_assert_num_queries(1):
        assert services.clocks_beat() == 0.0
    assert SiteClock.objects.get(pk=1).beat > before
