"""Fair dice across a rematch (docs/protocol.md, "Fair dice").

The server must never choose a game's server seed knowing the players' input.
So the next game's seed is committed (its hash shown) before anyone can
contribute to that game, and a contribution serves one game only: a rematch is
made of fresh contributions sent after its commitment, never the old ones.
"""

from __future__ import annotations

import hashlib

import pytest

from rooms import clock, errors, services
from rooms.models import Game, Room, Seat
from rooms.services import Actor
from tests.room_fixtures import person

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _instant_computers(settings):
    # A held seat plays at once, so a game whose players left ends in one call.
    settings.KHELAGHOR_BOT_DELAY = 0
    clock.reset()
    services.forget_cached_states()
    yield
    clock.reset()



def play_first_game(host: Actor, guest: Actor) -> tuple[Room, Game, str]:
    """Both contribute, game 1 starts and is played to the end by computers
    holding both seats. Returns the room, game 1 and the commitment shown for
    game 2 while game 1 was played."""
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest, client_seed="guest1")
    services.seat_seed(room.code, host, "host1")
    services.game_start(room.code, host)
    room.refresh_from_db()
    shown_for_next = room.next_server_seed_hash
    services.seat_leave(room.code, host)
    services.seat_leave(room.code, guest)
    first = services.current_game(room)
    while first.status == Game.Status.IN_PROGRESS:
        services.deadline_fire(first.id, first.seq)
        first.refresh_from_db()
    room.refresh_from_db()
    assert first.client_seed == "host1.guest1"
    assert room.status == Room.Status.FINISHED
    return room, first, shown_for_next


def test_a_contribution_serves_one_game_only():
    host, guest = person("Tanvir"), person("রুমি")
    room, _, _ = play_first_game(host, guest)
    assert [s.client_seed for s in Seat.objects.filter(room=room)] == ["", ""]


def test_a_rematch_never_reuses_the_contributions_of_the_last_game():
    host, guest = person("Tanvir"), person("রুমি")
    room, _, shown_for_next = play_first_game(host, guest)
    services.game_start(room.code, host)  # rematch before anyone contributed again
    second = services.current_game(room)
    assert second.number == 2
    assert second.client_seed == "khelaghor"  # nothing fresh: the documented empty seed
    assert "host1" not in second.client_seed and "guest1" not in second.client_seed
    assert second.server_seed_hash == shown_for_next


def test_a_rematch_uses_fresh_contributions_sent_after_its_seed_was_committed():
    host, guest = person("Tanvir"), person("রুমি")
    room, first, shown_for_next = play_first_game(host, guest)
    # The commitment for game 2 was public before game 1 was over...
    assert Room.objects.get(id=room.id).next_server_seed_hash == shown_for_next
    # ...and only now, on the results, do the players contribute to game 2.
    services.seat_seed(room.code, guest, "guest2")
    services.seat_seed(room.code, host, "host2")
    services.game_start(room.code, host)
    second = services.current_game(room)
    assert second.client_seed == "host2.guest2"
    assert second.server_seed_hash == shown_for_next
    assert hashlib.sha256(bytes.fromhex(second.server_seed)).hexdigest() == shown_for_next
    assert second.server_seed != first.server_seed


def test_no_contribution_is_taken_while_a_game_is_played():
    host, guest = person("Tanvir"), person("রুমি")
    room = services.room_create(actor=host, game="snakes", seats=2)
    services.seat_join(room.code, guest)
    services.game_start(room.code, host)
    with pytest.raises(errors.WrongStatus):
        services.seat_seed(room.code, guest, "late")
    assert Seat.objects.get(room=room, index=1).client_seed == ""
