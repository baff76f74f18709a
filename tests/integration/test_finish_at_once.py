"""A Snakes & Ladders player who places first does not watch the computers play
out the other places roll by roll: the update of the winning roll carries every
remaining roll and the results (rooms.services.play.only_computers_to_place, for a
game declared finish_at_once), and the
record still replays to the same placings with every die checked.

One person and two computers on a board whose only ladder climbs from the entry
square 6 to 100, so a game is a race to the first 6; the host rematches until
they are the one who places first. The computers wait BOT_DELAY per roll while the
human is still to be placed, so a per-roll pace after the win would show as
further updates, whatever the machine's speed.
"""

from __future__ import annotations

import pytest

from games.record import replay
from tests.integration import tables
from tests.integration.conftest import servers, sqlite_env

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RACE = {"ladders": {"6": 100}, "snakes": {}}
BOT_DELAY = "0.3"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = sqlite_env(tmp_path_factory.mktemp("finish-at-once"), KHELAGHOR_BOT_DELAY=BOT_DELAY,
                     KHELAGHOR_TURN_SECONDS="600")
    with servers(env, 1) as (one,):
        yield one


def winner_roll_update(frames: list[dict], number: int) -> dict | None:
    """The update of game ``number`` in which seat 0 reached 100 with nobody placed."""
    for frame in frames:
        game = frame.get("game") or {}
        if frame["type"] != "update" or game.get("number") != number:
            continue
        if any(e["type"] == "move" and e["seat"] == 0 and e["to"] == 100 for e in frame["events"]):
            return frame
    return None


async def test_the_winner_gets_the_other_places_in_the_same_update(server):
    host = tables.signed_in(server.base_url, "Tanvir")
    code = host.create_room("snakes", 3)
    await host.connect(code)
    try:
        for _ in range(2):
            await tables.command(host, {"type": "add_bot", "bot": "standard"})
        await tables.command(host, {"type": "set_options", "options": {"board": RACE}})
        for number in range(1, 31):
            assert await tables.start(host) == number
            first_frame = len(host.frames)
            end = await host.play_until_over(timeout=120)
            frames = host.frames[first_frame:]
            placings = end["game"]["placings"]
            win = winner_roll_update(frames, number)
            if placings[0] != 0:
                continue
            assert win is not None
            kinds = [e["type"] for e in win["events"]]
            # The winning roll, then the computers' rolls, then the results: one update.
            assert kinds[-1] == "finished" and win["events"][-1]["placings"] == placings
            rest = kinds[kinds.index("move") + 1:]
            assert rest.count("roll") >= 1, kinds
            assert win["room"]["status"] == "finished" and win is end
            record = tables.record_of(host, end)
            checked = replay(record, check_dice=True)
            assert checked.placings == placings
            game_rolls = [e for e in record["events"] if e["type"] == "roll"]
            seen_rolls = [e for f in frames if f["type"] == "update"
                          for e in f["events"] if e["type"] == "roll"]
            assert checked.dice_checked == len(game_rolls) == len(seen_rolls)
            assert host.errors == [] and tables.version_gaps(host) == []
            return
        pytest.fail("the human never placed first in 30 games")
    finally:
        await tables.close_all(host)
