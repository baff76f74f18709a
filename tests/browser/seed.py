"""Move a game that browsers are watching on to a late position, server-side.

A game is its setup plus its move log. A browser test whose point is the page
(the table, the results, the luck report), not the hundreds of moves of a Ludo
game, starts the game through the UI and then has the rest of the moves up to a
late position played through the room services, in a ``manage.py shell`` on the
test server's own database: the same commands the consumer runs for a page,
logged, checked and replayable like any other. The pages then reload (a
snapshot, as after a reconnect) and play on to the end through the UI.

Only on a ``calm_server`` (tests/browser/play.py): its turns never run out and
the computers act only after a page acted, so nothing else moves the game while
the script plays (the first turn is seat 0's, a human's). The script's own
computers answer inside each command (KHELAGHOR_BOT_DELAY=0), so every command
ends on a human's turn and the pages find the table waiting for them.

Whole games are still played to the end elsewhere: over real WebSockets for every
game and board (tests/integration/test_play.py), through the room layer under the
independent checker (tests/rooms/test_services.py), and in the browser for Snakes
and Liar's Dice (tests/browser/test_games.py).
"""

from __future__ import annotations

import json

from tests.servers import run_manage

# How far each game is played before the pages take over: a position late enough
# that the pages' part is short, early enough that the game is still on and the
# pages still play several turns each (see ``near_the_end``).
LUDO_SECOND_SEAT_LEFT = 40  # squares the second seat still has to move, at most


def play_server_side(server, code: str, seed: int = 11) -> dict:
    """Play room ``code`` on ``server`` (a calm one) to a late position; returns
    what the script saw: {"moves": commands sent, "seq": the game's seq,
    "version": the room's version}."""
    script = (
        "import json\n"
        "from tests.browser.seed import play_on\n"
        f"print(json.dumps(play_on({code!r}, {seed!r})))\n"
    )
    # A deadline, not a wait: a few seconds on a quiet machine, far more on a loaded one.
    out = run_manage("shell", "-c", script, env={**server.env, "KHELAGHOR_BOT_DELAY": "0"},
                     timeout=600)
    return json.loads(out.strip().splitlines()[-1])


def near_the_end(game: str, state) -> bool:
    """True once ``state`` is late enough for the pages to take over."""
    if game == "ludo":
        from games.ludo_geometry import GEOMETRIES

        home = GEOMETRIES[state.board].home
        # The game ends when all but one seat are home; the second seat to
        # finish decides how long that takes.
        left = sorted(sum(home - max(p, 0) for p in tokens) for tokens in state.tokens)
        return left[1] <= LUDO_SECOND_SEAT_LEFT
    raise ValueError(f"no late position defined for {game}")


def play_on(code: str, seed: int) -> dict:
    """Runs inside ``manage.py shell``: the seated humans play random legal
    moves from their own views until ``near_the_end``, then stop on a human's
    turn. The computers play inside each command (KHELAGHOR_BOT_DELAY=0)."""
    import random

    from django.conf import settings

    from games.bots import make_bot
    from games.registry import get_game
    from rooms import services
    from rooms.models import Room, Seat
    from rooms.services import Actor

    assert settings.KHELAGHOR_BOT_DELAY == 0, "the script's computers must answer at once"
    room = Room.objects.exclude(status=Room.Status.CLOSED).get(code=code)
    humans = {
        seat.index: Actor(session_key=seat.session_key, name=seat.name)
        for seat in Seat.objects.filter(room=room, kind=Seat.Kind.HUMAN)
    }
    rng = random.Random(seed)
    bot = None
    moves = 0
    for _ in range(5000):
        game_row = services.current_game(room)
        assert game_row.status == "in_progress", "the game ended before the pages took over"
        state = services.load_state(game_row)
        seat = get_game(game_row.game).turn(state).seat
        assert seat in humans, "a human is to move (the computers answer at once)"
        if near_the_end(game_row.game, state):
            return {"moves": moves, "seq": game_row.seq, "version": room_version(room)}
        # The human's own snapshot, as their page would have it: their view, their
        # legal actions, the room's version.
        snapshot = services.snapshot_for(code, humans[seat].session_key)
        game = snapshot["game"]
        bot = bot or make_bot(game_row.game, "random")
        action = bot.choose(game["view"], game["legal"], rng)
        services.game_action(code, humans[seat], snapshot["version"], action)
        moves += 1
    raise AssertionError("no late position in 5000 moves")


def room_version(room) -> int:
    room.refresh_from_db(fields=["version"])
    return room.version
