"""A move served by the process that committed the room's last change is
computed from the rows it kept (rooms.fresh) and written in one round trip
behind a guard; rows that another process has moved past are refused by the
guard and the move is done again under the lock. Run in a process of its own
on a real PostgreSQL, as a server runs (tests/integration/fresh_probe.py)."""

from __future__ import annotations

import pytest

from tests.integration.conftest import run_probe

pytestmark = pytest.mark.postgres

LOCK = "SELECT | SELECT | SELECT"  # the room locked, its game, its seats
GUARDED = "SELECT | INSERT"  # the guard, then the move's writes


@pytest.fixture(scope="module")
def probe(postgres_service):
    return run_probe("fresh_probe", postgres_service)


def test_a_move_after_this_processs_own_is_one_round_trip(probe):
    assert probe["first_move"][0].startswith(LOCK) and len(probe["first_move"]) == 2
    for move in ("kept_move", "kept_again"):
        assert len(probe[move]) == 1 and probe[move][0].startswith(GUARDED), probe[move]
    assert probe["seqs_contiguous"] and probe["cached_at_seq"]


def test_presence_written_without_a_version_reaches_a_move_from_kept_rows(probe):
    # Pings mark seats present without a version; the move made from the kept
    # rows reads the seats' presence again in its round trip.
    assert probe["kept_again"][0].endswith("SELECT"), probe["kept_again"]
    assert probe["presence_read_again"]


def test_rows_another_process_moved_past_are_refused_and_the_lock_decides(probe):
    # The guarded attempt fails, nothing of it is written, and the move done
    # again under the lock is refused as stale, as it always was.
    behind = probe["behind_trips"]
    assert len(behind) == 2 and behind[0].startswith(GUARDED) and behind[1].startswith(LOCK)
    assert probe["moved_after"] - probe["moved_before"] == 1
    assert probe["behind_refused_stale"]
    assert probe["behind_version_moved"] == 1  # the other process's change alone
    assert probe["behind_moves_logged"] == 0
    assert probe["behind_state_not_cached"]  # the refused state was not remembered
    # The next move reads under the lock, and keeps the rows again.
    assert probe["next_move"][0].startswith(LOCK)
    assert len(probe["then_kept"]) == 1 and probe["then_kept"][0].startswith(GUARDED)
    assert probe["seqs_contiguous_after"]


def test_a_computers_move_at_its_deadline_is_one_round_trip(probe):
    fires = probe["computer_fires"]
    assert len(fires) == 2
    for trips in fires:
        assert len(trips) == 1 and trips[0].startswith(GUARDED), trips
    assert probe["computer_seqs_contiguous"] and probe["computer_moves_logged"] >= 2
