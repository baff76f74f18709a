"""Run in its own process on PostgreSQL by test_rating_races.py. Prints, as JSON:

- ``played``: a rated private game played through the room services with real
  commits; its rating is written after the commit by the background thread
  (polled here with a deadline), not by the move that ended the game, and the
  thread tells the room's group (the in-memory channel layer) how it moved;
- ``same_game``: several threads rate one finished game at once;
- ``two_games``: two games that share a player are rated at once.
"""

import json
import os
import threading
import time
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from asgiref.sync import async_to_sync  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from accounts_optional import ratings  # noqa: E402
from accounts_optional.models import RatedGame, Rating, RatingChange  # noqa: E402
from rooms import services  # noqa: E402
from rooms.models import Game, Room  # noqa: E402
from rooms.publish import room_group  # noqa: E402
from tests.history.factories import record_for, stored_game  # noqa: E402

User = get_user_model()
THREADS = 4


def account(prefix: str):
    return User.objects.create_user(f"{prefix}-{uuid.uuid4().hex[:10]}", password="x-probe-1")


def seats_of(game_row: Game) -> list[ratings.SeatAtEnd]:
    return [ratings.SeatAtEnd(s.index, s.kind, s.user_id, s.bot_kind)
            for s in game_row.room.seats.order_by("index")]


def at_once(calls) -> list:
    """Run the calls in threads released together; each thread its own connection."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        barrier.wait(30)
        try:
            results[i] = call()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def heard_by_the_room(room_id: int, channel: str) -> list[dict]:
    """What the room's group was sent so far (a marker sent now ends the list)."""
    layer, end = get_channel_layer(), {"type": "probe.end"}
    async_to_sync(layer.group_send)(room_group(room_id), end)
    messages = []
    while (message := async_to_sync(layer.receive)(channel)) != end:
        messages.append(message)
    return messages


def played() -> dict:
    user = account("played")
    host = services.Actor(uuid.uuid4().hex, "Host", user.id)
    room = services.room_create(actor=host, game="snakes", seats=2, options={"rated": True})
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()  # a socket's place in the room's group
    async_to_sync(layer.group_add)(room_group(room.id), channel)
    services.bot_add(room.code, host)
    services.game_start(room.code, host)
    moves = 0
    while Room.objects.get(id=room.id).status == Room.Status.PLAYING:
        version = Room.objects.get(id=room.id).version
        services.game_action(room.code, host, version, {"type": "roll"})
        moves += 1
    game_row = Game.objects.get(room=room)
    deadline = time.monotonic() + 60
    while not RatedGame.objects.filter(game=game_row).exists():  # polled with a deadline
        if time.monotonic() > deadline:
            raise SystemExit("the rating was never written")
        time.sleep(0.05)
    # The rating thread has one worker: a task queued now runs once the
    # rating's task, and the message it sends after its commit, are done.
    ratings._worker.submit(lambda: None).result(timeout=60)
    told = [m for m in heard_by_the_room(room.id, channel) if m["type"] == "room.ratings"]
    rating = Rating.objects.get(user=user, game="snakes")
    return {"moves": moves, "status": game_row.status, "placings": game_row.placings,
            "games": rating.games, "game": game_row.id, "told": told,
            "mu": rating.mu, "changes": rating.changes.count()}


def same_game() -> dict:
    first, second = account("same-a"), account("same-b")
    game_row = stored_game(record_for("snakes", seed=11),
                           humans={0: uuid.uuid4().hex, 1: uuid.uuid4().hex},
                           users={0: first, 1: second})
    seats = seats_of(game_row)
    results = at_once([lambda: ratings.rate_game(game_row.id, seats)] * THREADS)
    return {"results": results,
            "games": sorted(Rating.objects.filter(user__in=[first, second])
                            .values_list("games", flat=True)),
            "changes": RatingChange.objects.filter(game=game_row).count()}


def two_games() -> dict:
    shared = account("shared")
    games = [stored_game(record_for("ludo", seed=seed),
                         humans={0: uuid.uuid4().hex, 1: uuid.uuid4().hex},
                         users={0: shared, 1: account(f"other{seed}")})
             for seed in (21, 22)]
    results = at_once([lambda g=g: ratings.rate_game(g.id, seats_of(g)) for g in games])
    rating = Rating.objects.get(user=shared, game="ludo")
    return {"results": results, "games": rating.games, "changes": rating.changes.count()}


def main() -> None:
    print(json.dumps({"played": played(), "same_game": same_game(), "two_games": two_games()}),
          flush=True)
    os._exit(0)  # turn timers of the finished room need not run out


if __name__ == "__main__":
    main()
