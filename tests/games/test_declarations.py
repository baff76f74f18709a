"""Each game is one declaration (games/registry.py): the facts the site reads
agree with the engine, and every file a declaration names exists."""

from __future__ import annotations

import importlib
import threading
import types
from pathlib import Path

import pytest

from games import registry
from games.base import Declaration
from games.bots import kinds_for
from games.registry import by_slug, declaration, declarations, game_names
from games.simulate import simulate_record

ROOT = Path(__file__).resolve().parents[2]
NAMES = [d.id for d in declarations()]


def test_the_registry_lists_each_game_once_with_a_unique_slug():
    assert sorted(NAMES) == game_names() and len(set(NAMES)) == len(NAMES)
    assert len({d.slug for d in declarations()}) == len(NAMES)
    for declared in declarations():
        assert isinstance(declared, Declaration)
        assert by_slug(declared.slug) is declared
    with pytest.raises(KeyError):
        by_slug("chess")


@pytest.mark.parametrize("name", NAMES)
def test_a_declaration_agrees_with_its_engine_and_bots(name):
    declared = declaration(name)
    assert declared.min_players <= declared.default_seats <= declared.max_players
    assert declared.min_players <= declared.quick_play_seats <= declared.max_players
    kinds = kinds_for(name)
    assert declared.standard_bot in kinds
    assert declared.easy_bot is None or declared.easy_bot in kinds
    assert declared.expert_bot is None or declared.expert_bot in kinds
    assert declared.dice_shown in ("held", "rolled")
    options = {o.name for o in declared.engine.options}
    assert set(declared.house_rule_names) <= options
    assert {d.event for d in declared.dice_fields} <= set(declared.event_types)


@pytest.mark.parametrize("name", NAMES)
def test_the_declared_files_exist(name):
    declared = declaration(name)
    assert (ROOT / "templates" / declared.rules_template).is_file()
    assert (ROOT / "templates" / declared.icon_template).is_file()
    assert (ROOT / "static" / declared.script).is_file()
    if declared.stylesheet:
        assert (ROOT / "static" / declared.stylesheet).is_file()


@pytest.mark.parametrize("name", NAMES)
def test_the_declared_dice_fields_read_the_dice_the_engine_reads(name):
    """verify.js reads a record's dice by the declaration's DiceFields: the same
    dice, in the same order, as the engine's own reading."""
    declared = declaration(name)
    n = declared.max_players
    record = simulate_record(name, ["random"] * n, seed="declared", index=n)
    dice = 0
    for event in record["events"]:
        assert declared.dice_of(event) == declared.engine.dice_in_event(event)
        dice += len(declared.dice_of(event))
    assert dice > 0


def test_a_thread_asking_while_another_loads_the_games_waits_for_the_whole_list(monkeypatch):
    """A server's first commands ask for games from several threads at once: one
    that asks while another is still importing the list must not find it half
    loaded (it once raised KeyError: 'snakes' at start-up under load)."""
    monkeypatch.setattr(registry, "_declarations", {})
    monkeypatch.setattr(registry, "_loaded", False)
    first_import_started, let_it_finish = threading.Event(), threading.Event()

    def slow_import(name):
        if name == registry.GAMES[0]:
            first_import_started.set()
            let_it_finish.wait(10)
        return importlib.import_module(name)

    monkeypatch.setattr(registry, "importlib", types.SimpleNamespace(import_module=slow_import))
    results: dict[str, object] = {}

    def ask(who, name):
        try:
            results[who] = registry.declaration(name)
        except Exception as exc:  # what the test looks for
            results[who] = exc

    loader = threading.Thread(target=ask, args=("loader", "liars_dice"))
    loader.start()
    assert first_import_started.wait(10)
    latecomer = threading.Thread(target=ask, args=("latecomer", "snakes"))
    latecomer.start()
    latecomer.join(0.5)  # without the lock it has already failed by now
    let_it_finish.set()
    loader.join(10)
    latecomer.join(10)
    assert getattr(results["latecomer"], "id", results["latecomer"]) == "snakes"
    assert getattr(results["loader"], "id", results["loader"]) == "liars_dice"
