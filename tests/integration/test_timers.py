"""Turn timers across two daphne processes on PostgreSQL + Redis.

Humans who connect and never act time out; every timeout must fire exactly
once however many processes poll the timers, and a SIGKILLed process must lose
no move and no timer: its clients reconnect to the other process and the
games end. Then the takeover and the reclaim, over the wire.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest
from websockets.exceptions import ConnectionClosed

from tests.integration import tables
from tests.integration.conftest import servers, shared_env

pytestmark = [pytest.mark.integration, pytest.mark.redis, pytest.mark.postgres,
              pytest.mark.slow]

TURN_SECONDS = 0.3
ROOMS = 20
HUMANS = 3  # per room, none of whom ever acts


@pytest.fixture(scope="module")
def env(postgres_service, redis_service):
    return shared_env(postgres_service, redis_service,
                      KHELAGHOR_TURN_SECONDS=str(TURN_SECONDS), KHELAGHOR_BOT_DELAY="0.05")


async def idle_room(url_for, number: int):
    """A Liar's Dice room of HUMANS humans (on alternating processes) who never
    act. (Liar's Dice: once the computers hold every seat the game is short.)"""
    clients = [tables.signed_in(url_for(number + i), f"Idle {number} {i}")
               for i in range(HUMANS)]
    code = clients[0].create_room("liars_dice", HUMANS)
    for client in clients:
        await client.connect(code)
    for client in clients[1:]:
        await tables.command(client, {"type": "join"})
    return code, clients


async def watch_until_over(client, url_for_reconnect, timeout: float):
    """Receive until the game is over, reconnecting (to the surviving process)
    when the socket drops."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    reconnects = 0
    while client.room_status != "finished":
        try:
            await client.recv(max(0.01, deadline - loop.time()))
        except ConnectionClosed:
            reconnects += 1
            client.base_url = url_for_reconnect
            await client.connect(client.code)
    return reconnects




async def roll_on_own_turn(host) -> dict:
    """Roll on the host's own turn until the server takes the roll; the update
    that carries it. With 0.3 s turns the timer may act first (the roll's
    version is then old: stale_version, and a new turn comes round). Reading
    the turn and racing the timer once would fail whenever the machine is slow."""
    for attempt in range(100):
        mine = await tables.until(
            host, lambda m: (m["game"]["turn"] or {}).get("seat") == 0, 10)
        version = mine["version"]
        await host.send({"type": "action", "version": version, "id": f"roll{attempt}",
                         "action": {"type": "roll"}})
        reply = await host.wait_for(lambda m, a=attempt: m.get("id") == f"roll{a}")
        if reply["type"] == "ok":  # its update may have come before the ok, or after
            def carries_it(m, v=version):
                return m["type"] == "update" and m["version"] == v + 1
            return next((f for f in host.frames if carries_it(f)), None) or \
                await host.wait_for(carries_it)
        assert reply["code"] == "stale_version", reply
    raise AssertionError("the timer beat every roll")


async def test_timeouts_fire_once_each_across_processes_and_survive_a_kill(env, postgres_service):
    with servers(env, 2) as (doomed, survivor):
        urls = [doomed.base_url, survivor.base_url]
        rooms = [await idle_room(lambda i: urls[i % 2], n) for n in range(ROOMS)]
        hosts = [clients[0] for _, clients in rooms]
        everyone = [c for _, clients in rooms for c in clients]
        for host in hosts:
            await tables.command(host, {"type": "start"})
        game_ids = []
        for host in hosts:
            await tables.until(host, lambda m: m["game"] is not None)
            game_ids.append(host.last["game"]["id"])

        # Let timeouts pile up, then kill the process half the clients use.
        first = [c for c in everyone if c.base_url == doomed.base_url]
        await asyncio.gather(*(
            tables.until(c, lambda m: any(e["type"] == "timeout"
                                          for e in m.get("events", [])), 20)
            for c in first[:5]
        ))
        doomed.process.kill()
        doomed.process.wait()
        killed_at, killed_wall = time.monotonic(), time.time()

        reconnects = await asyncio.gather(*(
            watch_until_over(c, survivor.base_url, 120) for c in everyone
        ))
        finished_in = time.monotonic() - killed_at
        await tables.close_all(*everyone)

    assert sum(reconnects) == len(first), "every client of the killed process came back"
    logs = tables.move_logs(postgres_service, game_ids)
    timeouts = after_kill = 0
    for game_id in game_ids:
        seqs = [seq for seq, _, _ in logs[game_id]]
        assert seqs == list(range(len(seqs))), f"game {game_id}: gaps or duplicates"
        events = [event for _, event, _ in logs[game_id]]
        after_kill += sum(e["type"] == "timeout" and at > killed_wall
                          for _, e, at in logs[game_id])
        per_seat = Counter(e["seat"] for e in events if e["type"] == "timeout")
        takeovers = Counter(e["seat"] for e in events if e["type"] == "takeover")
        # Three timeouts each, then a computer holds the seat: one takeover.
        assert per_seat == {seat: 3 for seat in range(HUMANS)}, f"game {game_id}"
        assert takeovers == {seat: 1 for seat in range(HUMANS)}, f"game {game_id}"
        # A deadline fired twice would put two timeouts on one decision.
        for before, after in zip(events, events[1:], strict=False):
            assert not (before["type"] == after["type"] == "timeout"), f"game {game_id}"
        timeouts += sum(per_seat.values())
    assert timeouts == ROOMS * HUMANS * 3
    assert after_kill > 0, "the surviving process fired timeouts the killed one had armed"
    assert finished_in < 110


def assert_held_moves_follow_the_rolls(client, takeover_version: int) -> None:
    """Every update ``client`` got from the takeover's on, in version order
    (two processes may deliver them out of order) and as far as none is
    missing, shows seat 0's count equal to its rolls since the takeover."""
    updates = {f["version"]: f for f in client.frames if f["type"] == "update"}
    rolls, version = 0, takeover_version
    while version in updates:
        update = updates[version]
        rolls += sum(1 for e in update["events"] if e["type"] == "roll" and e["seat"] == 0)
        seat = update["room"]["seats"][0]
        if seat["held"]:
            assert seat["held_moves"] == rolls, f"version {version}"
        version += 1
    assert rolls >= 2, "the takeover's turn and the held turn waited for"


# Here the human must act within the turn after reclaiming: 2 s, not 0.3 s,
# so the timer rarely wins (and when it does, roll_on_own_turn tries again).
RECLAIM_TURN_SECONDS = 2


async def test_three_timeouts_hand_the_seat_to_a_computer_until_reclaimed(
    postgres_service, redis_service
):
    env = shared_env(postgres_service, redis_service,
                     KHELAGHOR_TURN_SECONDS=str(RECLAIM_TURN_SECONDS), KHELAGHOR_BOT_DELAY="0.05")
    with servers(env, 2) as (server_a, server_b):
        host = tables.signed_in(server_a.base_url, "Tanvir")
        code = host.create_room("snakes", 2)
        await host.connect(code)
        await tables.command(host, {"type": "add_bot"})
        await tables.start(host)

        takeover = await host.wait_for(
            lambda m: m["type"] == "update"
            and {"type": "takeover", "seat": 0} in m["events"], 10 * RECLAIM_TURN_SECONDS)
        timeouts = [e for f in host.frames if f["type"] == "update" for e in f["events"]
                    if e["type"] == "timeout"]
        assert timeouts == [{"type": "timeout", "seat": 0}] * 3
        assert takeover["room"]["seats"][0]["held"] is True

        # The computer plays the held seat at its pace, not the human's.
        held_turn = await tables.until(
            host, lambda m: (m["game"]["turn"] or {}).get("seat") == 0, 10)
        assert held_turn["game"]["turn"]["by"] == "bot"
        assert held_turn["game"]["legal"] == [{"type": "roll"}]  # the human may still act
        await host.wait_for(lambda m: m["type"] == "update" and any(
            e.get("seat") == 0 and e["type"] != "timeout" for e in m["events"]), 5)

        await host.send({"type": "reclaim"})
        reclaimed = await host.wait_for(
            lambda m: m["type"] == "update"
            and {"type": "reclaim", "seat": 0} in m["events"], 5)
        assert reclaimed["room"]["seats"][0]["held"] is False
        # While held, the seat said how many turns the computer had played in it
        # (written with each move on PostgreSQL): one per roll of seat 0's since
        # the takeover, whose own turn is the first. Not once it is taken back.
        assert_held_moves_follow_the_rolls(host, takeover["version"])
        assert "held_moves" not in reclaimed["room"]["seats"][0]
        rolled = await roll_on_own_turn(host)
        assert {"type": "timeout", "seat": 0} not in rolled["events"]
        assert any(e["type"] == "roll" and e["seat"] == 0 for e in rolled["events"])
        # Refusals only for rolls the timer beat (their version had moved on).
        assert {e["code"] for e in host.errors} <= {"stale_version"}
        # Leave the rest to the computer (stop_games_left_in_progress, in
        # tests/fixtures.py, stops the game if the servers stop first).
        await tables.command(host, {"type": "leave"})
        await tables.close_all(host)
