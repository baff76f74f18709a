"""Random commands from both seated players at a live table, between their
moves: every one is answered once (``ok``, ``pong`` or a typed ``error``),
neither socket is closed, the server logs no error, and every game the room
played is still a record whose moves replay and whose dice check.

The commands are the protocol's types and some it does not have, with fields
of every kind of value (numbers out of range, huge and negative ones, text,
Bengali, lists, objects, nothing), and actions built from the legal ones with
fields spoiled. Some are allowed and do what they say (a guest leaves and a
computer holds the seat, a reclaim brings it back, a house rule changes
between games): the rules of the protocol judge each, not this test. Seeded:
the same commands on every run; the server's computers and clocks decide
only when each lands."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from games.record import replay
from tests.integration import tables

pytestmark = [pytest.mark.integration]

TYPES = ["join", "leave", "seed", "add_bot", "remove_bot", "free_seat", "take_host",
         "add_device_player", "remove_device_player", "show_seat", "set_options", "start",
         "start_now", "rematch", "action", "reclaim", "react", "ping",
         "nickname", "", "ACTION", "__proto__"]
FIELDS = ["seat", "name", "client_seed", "bot", "options", "pace", "version", "action",
          "reaction", "type", "token", "quantity", "face", "board"]
# What a refusal may say here (docs/protocol.md, "error"); the commands are
# paced under the rate limit and small, so neither closes the socket.
REFUSALS = {"bad_message", "stale_version", "not_your_turn", "illegal_action", "not_seated",
            "not_host", "room_full", "seat_taken", "wrong_status"}
ROUNDS = 70  # commands per player


def a_value(rng: random.Random, depth: int = 0) -> Any:
    kinds = 8 if depth >= 2 else 11
    kind = rng.randrange(kinds)
    if kind == 0:
        return rng.randrange(-3, 8)
    if kind == 1:
        return rng.choice([2**63, -2**63, 10**30, 1e308, -0.0, 0.5, float(2**53)])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.choice(["", "0", "-1", "NaN", "Infinity", "roll", "move", "bid", "challenge",
                           "party", "random", "standard", "external:ls", "prob:2",
                           "search:SAMPLES=999999", "খেলাঘর", "\u202e\u0000x", "x" * 300])
    if kind in (4, 5, 6, 7):
        return rng.randrange(0, 6)
    if kind == 8:
        return [a_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 9:
        return {rng.choice(FIELDS): a_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return {"ladders": {str(rng.randrange(-2, 110)): rng.randrange(-2, 110)},
            "snakes": a_value(rng, depth + 1), "rated": a_value(rng, depth + 1),
            "home_bonus_roll": a_value(rng, depth + 1), "dice_per_player": rng.randrange(-1, 7)}


def a_command(rng: random.Random, client) -> dict[str, Any]:
    message: dict[str, Any] = {"type": rng.choice(TYPES)}
    for _ in range(rng.randrange(4)):
        message[rng.choice(FIELDS)] = a_value(rng)
    if message["type"] == "action" and rng.random() < 0.6:
        game = (client.last or {}).get("game") or {}
        action = dict(rng.choice(game.get("legal") or [{"type": "roll"}]))
        for key in list(action):
            if rng.random() < 0.5:
                action[key] = a_value(rng)
        message["version"] = client.version if rng.random() < 0.7 else a_value(rng)
        message["action"] = action
    return message


async def answer_to(client, message: dict[str, Any], number: int) -> dict[str, Any]:
    """Send ``message`` with an id of its own; its one reply."""
    ident = f"r{number}"
    await tables.pacer(client).wait()
    await client.send({**message, "id": ident})
    try:
        return await client.wait_for(lambda m: m.get("id") == ident, timeout=20)
    except TimeoutError:
        raise AssertionError(f"no answer to {message}; last frames {client.frames[-4:]}") from None


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game", ["liars_dice", "ludo", "snakes"])
async def test_random_commands_are_each_answered_and_break_nothing(sqlite_server, game):
    await random_commands_at_a_table(game, sqlite_server, sqlite_server)


@pytest.mark.timeout(300)
async def test_random_commands_across_two_processes_on_postgresql_and_redis(shared_servers):
    """The host on one process, the guest on the other: every command and
    every update crosses Redis, every move PostgreSQL's row lock."""
    await random_commands_at_a_table("liars_dice", *shared_servers)


async def random_commands_at_a_table(game: str, host_server, guest_server) -> None:
    servers = [host_server] if guest_server is host_server else [host_server, guest_server]
    logs_before = [len(server.log()) for server in servers]
    host, guest, code = await tables.open_table(host_server.base_url, guest_server.base_url,
                                                game, 2)
    await tables.start(host, guest)
    rng = random.Random(f"random commands {game}")
    answers: Counter[str] = Counter()
    number = 0
    for _ in range(ROUNDS):
        for client in (host, guest):
            number += 1
            if client.my_turn() and rng.random() < 0.4:  # the game goes on between them
                state = client.last["game"]
                message = {"type": "action", "version": client.version,
                           "action": rng.choice(state["legal"])}
            else:
                message = a_command(rng, client)
            reply = await answer_to(client, message, number)
            assert reply["type"] in ("ok", "error", "pong"), (message, reply)
            if reply["type"] == "error":
                assert reply["code"] in REFUSALS, (message, reply)
                assert reply["message"], reply
            answers[reply.get("code", reply["type"])] += 1

    # Both sockets are open and answer; the room answers over HTTP too.
    for client in (host, guest):
        assert (await answer_to(client, {"type": "ping"}, number := number + 1))["type"] == "pong"
        assert client.ws.close_code is None
    snapshot = tables.room_api(host, code)
    assert snapshot["room"]["code"] == code
    # The game can still be played to its end (a seat its player left is the
    # computer's), and every game the room played replays from its record,
    # dice checked.
    finished = await tables.play_out(host, guest)
    assert all(last["room"]["status"] == "finished" for last in finished)
    records = {frame["game"]["record_url"] for client in (host, guest) for frame in client.frames
               if frame.get("type") in ("snapshot", "update") and frame.get("game")
               and frame["game"].get("record_url")}
    assert records, "the game that was played out has a record"
    for record_url in records:
        record = tables.fetch_json(host, record_url)
        replay(record, check_dice=True)
        assert record["status"] == "finished" and record["placings"], record_url
    for server, before in zip(servers, logs_before, strict=True):
        log = server.log()[before:]
        assert "Traceback" not in log and " ERROR " not in log, log[-3000:]
    print(f"\n{game}: {sum(answers.values())} commands, {dict(sorted(answers.items()))}; "
          f"{len(records)} finished game(s) replayed")
    assert answers["bad_message"] and answers["ok"]  # the mix held both kinds
    await tables.close_all(host, guest)
