"""Ratings on PostgreSQL, with real commits and real concurrency (rating_probe.py):
a game's ratings are written after its commit by the background thread, which
then tells the room, exactly once however many processes or threads see it end,
and two games that share a player both count."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.integration.conftest import shared_env
from tests.servers import REPO_ROOT, python_for_servers

pytestmark = [pytest.mark.postgres, pytest.mark.integration]


@pytest.fixture(scope="module")
def probe(postgres_service) -> dict:
    env = shared_env(postgres_service, "", KHELAGHOR_BOT_DELAY="0")
    run = subprocess.run(
        [python_for_servers(), "-m", "tests.accounts.rating_probe"],
        cwd=REPO_ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=240,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_rated_game_played_through_the_rooms_is_rated_after_its_commit(probe):
    played = probe["played"]
    assert played["status"] == "finished" and played["moves"] > 0
    assert played["games"] == 1 and played["changes"] == 1
    won = played["placings"][0] == 0
    assert (played["mu"] > 25) == won, played


def test_the_rating_thread_tells_the_room_how_the_rating_moved(probe):
    played = probe["played"]
    assert played["told"] == [{"type": "room.ratings", "game": played["game"], "changes": [
        {"seat": 0, "before": 25.0, "after": round(played["mu"], 1)}]}]


def test_a_game_seen_ending_by_many_at_once_is_rated_exactly_once(probe):
    same = probe["same_game"]
    rated = [r for r in same["results"] if r is not None]
    assert rated == [2], same["results"]
    assert same["games"] == [1, 1] and same["changes"] == 2


def test_two_games_sharing_a_player_rated_at_once_both_count(probe):
    both = probe["two_games"]
    assert both["results"] == [2, 2]
    assert both["games"] == 2 and both["changes"] == 2
