"""The rule book and the record specification must say what the engines do.

docs/rules.md and docs/record.md are read by people who write their own
checkers, so the facts they state as data (test vectors, default options, the
fields the replayer compares, the boards, the Ludo arms) are read back from the
Markdown here and compared with the code. A change on either side that the other
does not follow fails.
"""

import io
import json
import re
from pathlib import Path

from games import fairness, ludo_geometry, snakes
from games.cli import simulate_main
from games.registry import get_game

DOCS = Path(__file__).resolve().parent.parent / "docs"
RULES = (DOCS / "rules.md").read_text(encoding="utf-8")
RECORD = (DOCS / "record.md").read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The body of the section whose heading starts with ``heading``."""
    match = re.search(rf"^#+ {re.escape(heading)}.*?$(.*?)(?=^#+ |\Z)", text, re.M | re.S)
    assert match, f"no section {heading!r}"
    return match.group(1)


def test_the_test_vectors_are_what_the_dice_function_gives():
    vectors = _section(RECORD, "3.7 Test vectors")
    seed, client = fairness.simulated_seeds("0", 0)
    assert f"server seed `{seed.hex()}`" in vectors
    assert f"server seed hash `{fairness.seed_hash(seed)}`" in vectors
    assert f"client seed `{client}`" in vectors
    listed = re.search(r"dice for nonces 0–9: ([\d, ]+)", vectors).group(1)
    assert [int(d) for d in listed.split(",")] == [
        fairness.die(seed, client, n) for n in range(10)
    ]
    assert re.search(r"nonce 18:.*?\*\*(\d)\*\*", vectors, re.S).group(1) == str(
        fairness.die(seed, client, 18)
    )


def test_the_listed_defaults_are_every_option_of_every_game():
    options = _section(RECORD, "1.3 Options")
    block = re.search(r"```json\n(.*?)```", options, re.S).group(1)
    written = [json.loads(line) for line in block.splitlines() if line.strip()]
    resolved = [get_game(name).resolve_options(2, {}) for name in ("liars_dice", "ludo", "snakes")]
    assert written == resolved
    # The writers' key order, as the page says.
    assert [list(w) for w in written] == [list(r) for r in resolved]


def test_the_compared_fields_are_the_ones_the_replayer_compares():
    table = _section(RECORD, "4. What a valid record is")
    names = {"Liar's Dice": "liars_dice", "Ludo": "ludo", "Snakes": "snakes"}
    rows = re.findall(r"^\s*\| (Liar's Dice|Ludo|Snakes) \| `(\w+)` \| (.*?) \|$", table, re.M)
    documented: dict[str, dict[str, tuple[str, ...]]] = {}
    for game, event, fields in rows:
        documented.setdefault(names[game], {})[event] = tuple(re.findall(r"`(\w+)`", fields))
    assert documented == {
        name: get_game(name).record_event_fields for name in ("liars_dice", "ludo", "snakes")
    }


def _board(text: str) -> dict[str, dict[str, int]]:
    def pairs(line: str) -> dict[str, int]:
        return {a: int(b) for a, b in re.findall(r"(\d+)→(\d+)", line)}

    ladders = re.search(r"^- Ladders: (.*)$", text, re.M).group(1)
    snakes_line = re.search(r"^- Snakes: (.*)$", text, re.M).group(1)
    return {"ladders": pairs(ladders), "snakes": pairs(snakes_line)}


def test_the_boards_in_the_rule_book_are_the_engine_boards():
    section = _section(RULES, "3.5 The boards")
    classic, gentle = section.split("`gentle`")
    assert _board(classic) == snakes.BOARDS["classic"]
    assert _board(gentle) == snakes.BOARDS["gentle"]


def test_the_ludo_arms_table_is_the_engine_default():
    section = _section(RULES, "2.1 The board")
    rows = dict(re.findall(r"^\s*\| (\d) \| (.*?) \|$", section, re.M))
    for players, arms in ludo_geometry.DEFAULT_ARMS.items():
        text = rows[str(players)]
        if "to" in text:
            low, high = map(int, re.findall(r"\d+", text)[:2])
            assert tuple(range(low, high + 1)) == arms
        else:
            assert tuple(int(a) for a in re.findall(r"\d+", text)) == arms


def test_the_example_record_is_what_its_command_prints():
    # The example names the command that printed it; the bots' play changes
    # as they improve, and a stale example misleads a checker's author.
    example = _section(RECORD, "1.1")
    command = re.search(r"`manage\.py simulate ([^`]+)`", example).group(1).split()
    shown = json.loads(re.search(r"```json\n(.*?)\n```", example, re.S).group(1))
    out = io.StringIO()
    assert simulate_main(command, out) == 0
    assert json.loads(out.getvalue()) == shown
