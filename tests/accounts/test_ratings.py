"""Ratings: which games and seats count, the update itself (once per game), what
the room is told of it (the ``ratings`` message, the finished game's snapshot), the
host's "rated" choice, the leaderboard and profile pages, and moderation.

These run on the test database (SQLite) and call ``rate_game`` directly; the
after-commit thread and races between processes are tested on PostgreSQL in
test_rating_races.py, and the pages in a real browser in tests/browser.
"""

from __future__ import annotations

import logging
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.urls import reverse

from accounts_optional import ratings
from accounts_optional.models import (
    DEFAULT_MU,
    LeaderboardExclusion,
    RatedGame,
    Rating,
    RatingChange,
    RatingDue,
    RatingModerationLog,
)
from accounts_optional.ratings import SeatAtEnd
from rooms import clock, errors, selectors, services
from rooms.models import Game, Room
from rooms.publish import room_group
from tests.history.factories import record_for, stored_game
from tests.room_fixtures import person
from tests.servers import free_port

pytestmark = pytest.mark.django_db

BN = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def account(django_user_model, name: str):
    return django_user_model.objects.create_user(name, password="pw-for-tests-1")


def seats_of(game_row: Game) -> list[SeatAtEnd]:
    """Who sat where, as rooms.services hands it over when the game ends."""
    return [SeatAtEnd(s.index, s.kind, s.user_id, s.bot_kind)
            for s in game_row.room.seats.order_by("index")]


def two_accounts_and_a_computer(django_user_model, seed: int = 7, **kwargs):
    """A finished 3-seat Snakes game: accounts in seats 0 and 1, a computer in seat 2."""
    first, second = account(django_user_model, "rumi"), account(django_user_model, "tanvir")
    record = record_for("snakes", seed=seed)
    game_row = stored_game(record, humans={0: uuid.uuid4().hex, 1: uuid.uuid4().hex},
                           users={0: first, 1: second}, **kwargs)
    return game_row, first, second


# ---- pure pieces ---------------------------------------------------------------------


def test_a_seat_played_by_a_computer_for_most_decisions_is_known_from_the_log():
    events = [
        {"type": "roll", "seat": 0, "value": 3}, {"type": "move", "seat": 0},
        {"type": "timeout", "seat": 1}, {"type": "roll", "seat": 1, "value": 2},  # computer
        {"type": "roll", "seat": 0, "value": 6},
        {"type": "timeout", "seat": 1}, {"type": "takeover", "seat": 1},
        {"type": "roll", "seat": 1, "value": 1}, {"type": "roll", "seat": 1, "value": 5},
        {"type": "reclaim", "seat": 1}, {"type": "roll", "seat": 1, "value": 4},
    ]
    share = ratings.computer_share("snakes", events)
    assert share == {0: (0, 2), 1: (3, 4)}
    assert not ratings.mostly_computer(share[0])
    assert ratings.mostly_computer(share[1])
    assert not ratings.mostly_computer((1, 2)), "exactly half is not more than half"


def test_a_liars_dice_deal_is_nobodys_decision():
    events = [{"type": "round", "dice": {"0": [1, 2], "1": [3, 4]}},
              {"type": "bid", "seat": 0, "quantity": 1, "face": 2},
              {"type": "challenge", "seat": 1}]
    assert ratings.computer_share("liars_dice", events) == {0: (0, 1), 1: (0, 1)}


def test_places_per_seat_and_the_unplaced_share_the_last():
    assert ratings.ranks_of([2, 0, 1], 3) == [2, 3, 1]
    assert ratings.ranks_of([1], 3) == [2, 1, 2]


# ---- the update ------------------------------------------------------------------------


def test_a_rated_game_moves_the_winner_up_and_the_loser_down_once(django_user_model):
    game_row, first, second = two_accounts_and_a_computer(django_user_model)
    assert ratings.rate_game(game_row.id, seats_of(game_row)) == 2
    after = {r.user_id: r for r in Rating.objects.filter(game="snakes")}
    assert set(after) == {first.id, second.id}  # guests and computers have no rating
    place = {seat: i for i, seat in enumerate(game_row.placings)}
    better, worse = (first, second) if place[0] < place[1] else (second, first)
    assert after[better.id].mu > after[worse.id].mu
    # Everyone beat or lost to a computer too: the winner gains, the last loses.
    user_in = {0: first.id, 1: second.id}
    if game_row.placings[0] in user_in:
        assert after[user_in[game_row.placings[0]]].mu > DEFAULT_MU
    if game_row.placings[-1] in user_in:
        assert after[user_in[game_row.placings[-1]]].mu < DEFAULT_MU
    assert all(r.games == 1 and r.sigma < 25 / 3 for r in after.values())
    assert RatingChange.objects.filter(game=game_row).count() == 2
    # Each change keeps its seat and the rating it started from: a newcomer's default.
    changes = RatingChange.objects.filter(game=game_row).order_by("seat")
    assert list(changes.values_list("seat", "mu_before")) == [(0, DEFAULT_MU), (1, DEFAULT_MU)]
    assert RatedGame.objects.get(game=game_row).players == 2

    # Seeing the same game end again changes nothing.
    assert ratings.rate_game(game_row.id, seats_of(game_row)) is None
    again = {r.user_id: (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    assert again == {u: (r.mu, r.sigma, r.games) for u, r in after.items()}
    assert RatingChange.objects.count() == 2


def test_a_seat_a_computer_mostly_played_is_not_rated_for_that_player(django_user_model):
    first, second = account(django_user_model, "rumi"), account(django_user_model, "tanvir")
    record = record_for("snakes")
    # Seat 1 left at the very start: a computer made every one of its decisions.
    record["events"] = [{"type": "takeover", "seat": 1, "reason": "left"}, *record["events"]]
    game_row = stored_game(record, humans={0: uuid.uuid4().hex, 1: uuid.uuid4().hex},
                           users={0: first, 1: second})
    assert ratings.rate_game(game_row.id, seats_of(game_row)) == 1
    assert list(Rating.objects.values_list("user_id", flat=True)) == [first.id]


def test_one_account_in_two_seats_is_not_rated(django_user_model):
    player = account(django_user_model, "twice")
    record = record_for("snakes")
    game_row = stored_game(record, humans={0: "a" * 32, 1: "b" * 32},
                           users={0: player, 1: player})
    assert ratings.rate_game(game_row.id, seats_of(game_row)) == 0
    assert not Rating.objects.exists()
    assert RatedGame.objects.filter(game=game_row).exists()


def test_a_stronger_computer_teaches_more_than_a_weaker_one(django_user_model):
    """Beating the standard computer is worth more than beating a random one."""
    gains = {}
    for kind in ("random", "standard"):
        player = account(django_user_model, f"vs-{kind}")
        record = record_for("ludo")
        winner = record["placings"][0]
        game_row = stored_game(record, humans={winner: uuid.uuid4().hex},
                               users={winner: player})
        seats = [SeatAtEnd(s.index, s.kind, s.user_id, kind if s.kind == "bot" else "")
                 for s in game_row.room.seats.order_by("index")]
        ratings.rate_game(game_row.id, seats)
        gains[kind] = Rating.objects.get(user=player).mu - DEFAULT_MU
    assert gains["standard"] > gains["random"] > 0


def test_a_failed_rating_is_logged_and_raises_nothing(caplog):
    with caplog.at_level(logging.ERROR, logger="accounts_optional.ratings"):
        ratings._rate_in_background(10**9, [])  # no such game
    assert "rating game 1000000000 failed" in caplog.text


def finished_rated_with_thread_lost(game_row, capture_on_commit_callbacks) -> list:
    """Make the game's table rated and end it, without running what its commit
    would start (the rating thread): the callbacks that were not run."""
    room = game_row.room
    room.options = {"rated": True}
    room.save(update_fields=["options"])
    with capture_on_commit_callbacks(execute=False) as callbacks:
        with transaction.atomic():
            ratings.game_finished(room, game_row, list(room.seats.order_by("index")))
    return callbacks


def test_a_rating_lost_with_its_process_is_done_later_by_the_sweep(
        django_user_model, django_capture_on_commit_callbacks):
    game_row, first, second = two_accounts_and_a_computer(django_user_model)
    # The game ends; its process dies before the rating thread gets to it.
    callbacks = finished_rated_with_thread_lost(game_row, django_capture_on_commit_callbacks)
    assert len(callbacks) == 1, "the thread was scheduled, and lost"
    assert RatingDue.objects.filter(game=game_row).exists()
    assert not Rating.objects.exists()

    try:
        assert ratings.rate_overdue() == 0, "not overdue yet: its thread may still be at it"
        clock.advance(ratings.OVERDUE_AFTER.total_seconds() + 1)
        assert ratings.rate_overdue() == 1
    finally:
        clock.reset()
    assert set(Rating.objects.values_list("user_id", flat=True)) == {first.id, second.id}
    assert RatedGame.objects.get(game=game_row).players == 2
    assert not RatingDue.objects.exists()
    assert ratings.rate_overdue() == 0


def test_a_due_rating_is_cleared_by_the_update_and_never_done_twice(
        django_user_model, django_capture_on_commit_callbacks):
    game_row, _, _ = two_accounts_and_a_computer(django_user_model)
    finished_rated_with_thread_lost(game_row, django_capture_on_commit_callbacks)
    assert ratings.rate_game(game_row.id, seats_of(game_row)) == 2  # the thread, in time
    assert not RatingDue.objects.exists()
    # A copy left behind (two processes saw the end) is cleared without a second update.
    RatingDue.objects.create(game=game_row, seats=[])
    before = list(Rating.objects.order_by("id").values_list("mu", "games"))
    try:
        clock.advance(ratings.OVERDUE_AFTER.total_seconds() + 1)
        assert ratings.rate_overdue() == 1
    finally:
        clock.reset()
    assert list(Rating.objects.order_by("id").values_list("mu", "games")) == before
    assert not RatingDue.objects.exists()


# ---- telling the room ----------------------------------------------------------------------


class RoomListener:
    """A socket's place in a room's group on the channel layer the tests use
    (in memory), without a socket: what the room's sockets would be handed."""

    END = {"type": "test.end"}

    def __init__(self, room_id: int) -> None:
        self.layer = get_channel_layer()
        self.group = room_group(room_id)
        self.channel = async_to_sync(self.layer.new_channel)()
        async_to_sync(self.layer.group_add)(self.group, self.channel)

    def heard(self) -> list[dict]:
        """Every message the room was sent so far, in order: a marker sent now
        comes after all of them, so the list ends where it is received."""
        async_to_sync(self.layer.group_send)(self.group, self.END)
        messages = []
        while (message := async_to_sync(self.layer.receive)(self.channel)) != self.END:
            messages.append(message)
        return messages


def test_the_room_hears_how_each_rated_seat_moved_once_the_ratings_commit(
        django_user_model, django_capture_on_commit_callbacks):
    game_row, first, second = two_accounts_and_a_computer(django_user_model)
    Rating.objects.create(user=first, game="snakes", mu=30.04, sigma=5.0, games=3)
    room = RoomListener(game_row.room_id)
    with django_capture_on_commit_callbacks(execute=False) as after_commit:
        assert ratings.rate_game(game_row.id, seats_of(game_row)) == 2
    assert room.heard() == [], "nothing before the commit"

    for callback in after_commit:
        callback()
    mu = {r.user_id: r.mu for r in Rating.objects.filter(game="snakes")}
    assert room.heard() == [{"type": "room.ratings", "game": game_row.id, "changes": [
        {"seat": 0, "before": 30.0, "after": round(mu[first.id], 1)},
        {"seat": 1, "before": 25.0, "after": round(mu[second.id], 1)},  # a newcomer
    ]}]
    # What the results panel shows is what a player sees everywhere: one decimal.
    assert f"{mu[first.id]:.1f}" == str(round(mu[first.id], 1))
    stored = RatingChange.objects.filter(game=game_row).order_by("seat")
    assert [(c.seat, c.mu_before) for c in stored] == [(0, 30.04), (1, DEFAULT_MU)]

    # Seen ending again (another process): rated once, told once.
    with django_capture_on_commit_callbacks(execute=True):
        assert ratings.rate_game(game_row.id, seats_of(game_row)) is None
    assert room.heard() == []


def test_a_game_with_no_seat_to_rate_tells_the_room_nothing(
        django_user_model, django_capture_on_commit_callbacks):
    player = account(django_user_model, "twice")
    game_row = stored_game(record_for("snakes"), humans={0: "a" * 32, 1: "b" * 32},
                           users={0: player, 1: player})
    room = RoomListener(game_row.room_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert ratings.rate_game(game_row.id, seats_of(game_row)) == 0
    assert room.heard() == []


def test_a_rating_done_by_the_sweep_is_told_to_the_room_too(
        django_user_model, django_capture_on_commit_callbacks):
    game_row, first, second = two_accounts_and_a_computer(django_user_model)
    finished_rated_with_thread_lost(game_row, django_capture_on_commit_callbacks)
    room = RoomListener(game_row.room_id)
    try:
        clock.advance(ratings.OVERDUE_AFTER.total_seconds() + 1)
        with django_capture_on_commit_callbacks(execute=True):
            assert ratings.rate_overdue() == 1
    finally:
        clock.reset()
    (told,) = room.heard()
    assert told["type"] == "room.ratings" and told["game"] == game_row.id
    assert [(c["seat"], c["before"]) for c in told["changes"]] == [(0, 25.0), (1, 25.0)]
    after = {r.user_id: round(r.mu, 1) for r in Rating.objects.all()}
    assert [c["after"] for c in told["changes"]] == [after[first.id], after[second.id]]


def test_with_redis_away_the_ratings_stand_and_the_room_message_is_only_a_warning(
        django_user_model, django_capture_on_commit_callbacks, settings, caplog):
    game_row, first, _ = two_accounts_and_a_computer(django_user_model)
    # The production layer, on a Redis that is not there (nothing listens on the port).
    settings.CHANNEL_LAYERS = {"default": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {"hosts": [{"address": f"redis://127.0.0.1:{free_port()}"}]},
    }}
    with caplog.at_level(logging.WARNING, logger="rooms.publish"):
        with django_capture_on_commit_callbacks(execute=True):
            assert ratings.rate_game(game_row.id, seats_of(game_row)) == 2
    assert "Redis is away" in caplog.text and "room.ratings" in caplog.text
    assert all(r.levelno == logging.WARNING for r in caplog.records if r.name == "rooms.publish")
    assert Rating.objects.get(user=first).games == 1


def test_a_finished_games_snapshot_carries_its_ratings_for_one_query_and_play_for_none(
        django_user_model, django_assert_num_queries):
    game_row, first, second = two_accounts_and_a_computer(django_user_model)
    room = game_row.room
    room.options = {"rated": True}
    room.save(update_fields=["options"])
    with django_assert_num_queries(1):
        assert selectors.finished_game_ratings(game_row) is None, "not rated yet"
    assert "ratings" not in selectors.snapshot_for(room.code, "someone")["game"]

    ratings.rate_game(game_row.id, seats_of(game_row))
    mu = {r.user_id: round(r.mu, 1) for r in Rating.objects.all()}
    moved = [{"seat": 0, "before": 25.0, "after": mu[first.id]},
             {"seat": 1, "before": 25.0, "after": mu[second.id]}]
    with django_assert_num_queries(1):
        assert selectors.finished_game_ratings(game_row) == moved
    assert selectors.snapshot_for(room.code, "someone")["game"]["ratings"] == moved

    game_row.status = Game.Status.IN_PROGRESS  # as every update during play sees it
    with django_assert_num_queries(0):
        assert selectors.finished_game_ratings(game_row) is None
    game_row.status = Game.Status.FINISHED
    room.options = {}  # the host unticks "rated" for the next game: this one's stay
    with django_assert_num_queries(1):
        assert selectors.finished_game_ratings(game_row) == moved


# ---- which tables are rated --------------------------------------------------------------



def test_quick_play_is_rated_and_a_private_table_only_when_its_host_says_so():
    host = person()
    private = services.room_create(actor=host, game="snakes", seats=2)
    assert not ratings.is_rated_table(private)
    services.options_set(private.code, host, {"rated": True}, None)
    private.refresh_from_db()
    assert private.options["rated"] is True and ratings.is_rated_table(private)
    services.options_set(private.code, host, {"rated": False}, None)
    private.refresh_from_db()
    assert "rated" not in private.options
    public = services.room_create(actor=person(), game="snakes", seats=2, visibility="public")
    assert ratings.is_rated_table(public)


def test_rated_is_kept_with_house_rules_and_never_reaches_the_record():
    host = person()
    room = services.room_create(actor=host, game="ludo", seats=2,
                                options={"rated": True, "home_bonus_roll": False})
    services.options_set(room.code, host, {"home_bonus_roll": True}, None)
    room.refresh_from_db()
    assert room.options["rated"] is True and room.options["home_bonus_roll"] is True
    services.bot_add(room.code, host)
    services.game_start(room.code, host)
    game_row = Game.objects.get(room=room)
    assert "rated" not in game_row.options
    assert "rated" not in services.game_record(game_row)["options"]


@pytest.mark.parametrize("given", ["yes", 1, None])
def test_rated_must_be_yes_or_no_and_a_bad_value_changes_nothing(given):
    host = person()
    room = services.room_create(actor=host, game="snakes", seats=2)
    before = dict(Room.objects.get(id=room.id).options)
    with pytest.raises(errors.BadMessage):
        services.options_set(room.code, host, {"rated": given}, None)
    assert Room.objects.get(id=room.id).options == before


def test_a_public_table_cannot_be_made_unrated():
    host = person()
    room = services.room_create(actor=host, game="snakes", seats=2, visibility="public")
    with pytest.raises(errors.WrongStatus):
        services.options_set(room.code, host, {"rated": False}, None)


# ---- pages --------------------------------------------------------------------------------


def rated_accounts(django_user_model, game: str, rows: list[tuple[str, float, float, int]]):
    for name, mu, sigma, games in rows:
        Rating.objects.create(user=account(django_user_model, name), game=game, mu=mu,
                              sigma=sigma, games=games)


def test_the_leaderboard_ranks_settled_players_and_lists_newcomers_apart(client,
                                                                        django_user_model):
    rated_accounts(django_user_model, "ludo", [
        ("asha", 31.26, 2.0, 12), ("babu", 28.0, 3.0, 5), ("chandra", 35.0, 6.0, 2),
        ("dipu", 20.0, 2.5, 40),
    ])
    rated_accounts(django_user_model, "snakes", [("elsewhere", 40.0, 1.0, 50)])
    client.cookies["django_language"] = "en"
    page = client.get(reverse("leaderboard", args=["ludo"]))
    assert page.status_code == 200
    board = page.context["board"]
    assert [(r.rank, r.name) for r in board["ranked"]] == [(1, "asha"), (2, "babu"), (3, "dipu")]
    assert [r.name for r in board["newcomers"]] == ["chandra"]
    html = page.content.decode()
    assert "31.3" in html and "± 4.0" in html and "elsewhere" not in html


def test_the_bengali_leaderboard_writes_numbers_in_bengali_digits(client, django_user_model):
    rated_accounts(django_user_model, "liars_dice", [("asha", 31.26, 2.0, 12)])
    client.cookies["django_language"] = "bn"
    html = client.get(reverse("leaderboard", args=["liars-dice"])).content.decode()
    assert "31.3".translate(BN) in html and "± " + "4.0".translate(BN) in html
    assert ">" + "12".translate(BN) + "<" in html


def test_every_profile_links_to_the_three_leaderboards(client):
    html = client.get(reverse("profile")).content.decode()  # a guest's, too
    for slug in ("liars-dice", "ludo", "snakes-and-ladders"):
        assert f'href="/leaderboard/{slug}/"' in html
        assert client.get(f"/leaderboard/{slug}/").status_code == 200


def test_an_unknown_game_has_no_leaderboard(client):
    assert client.get("/leaderboard/chess/").status_code == 404


def test_the_profile_shows_each_rating_with_its_history(client, django_user_model):
    game_row, first, _ = two_accounts_and_a_computer(django_user_model)
    ratings.rate_game(game_row.id, seats_of(game_row))
    client.force_login(first)
    page = client.get(reverse("profile"))
    (shown,) = page.context["ratings"]
    assert shown["game"] == "snakes" and shown["row"].games == 1
    assert shown["chart"]["points"] == 2  # the start and after the one game
    html = page.content.decode()
    assert 'class="rating-chart"' in html and "<polyline" in html
    assert "style=" not in html.split('data-testid="ratings"')[1].split("</ul>")[0]


# ---- moderation ----------------------------------------------------------------------------


def test_a_moderator_resets_a_rating_and_the_log_keeps_what_it_was(admin_client,
                                                                   django_user_model):
    game_row, first, _ = two_accounts_and_a_computer(django_user_model)
    ratings.rate_game(game_row.id, seats_of(game_row))
    rating = Rating.objects.get(user=first)
    url = reverse("admin:accounts_optional_rating_changelist")
    asked = admin_client.post(url, {"action": "reset_ratings", "_selected_action": [rating.pk]})
    assert asked.status_code == 200 and b'name="reason"' in asked.content  # asks why first
    assert Rating.objects.get(pk=rating.pk).games == 1
    admin_client.post(url, {"action": "reset_ratings", "_selected_action": [rating.pk],
                            "apply": "1", "reason": "boosted by a friend"})
    rating.refresh_from_db()
    assert (rating.mu, rating.games) == (DEFAULT_MU, 0) and not rating.changes.exists()
    entry = RatingModerationLog.objects.get()
    assert (entry.action, entry.user, entry.reason) == ("reset", first, "boosted by a friend")
    assert "1 games" in entry.before


def test_an_excluded_cheater_leaves_every_leaderboard(admin_client, client, django_user_model):
    rated_accounts(django_user_model, "ludo", [("cheat", 40.0, 1.0, 30), ("fair", 30.0, 1.0, 30)])
    cheat = Rating.objects.get(user__username="cheat")
    url = reverse("admin:accounts_optional_rating_changelist")
    admin_client.post(url, {"action": "exclude_players", "_selected_action": [cheat.pk],
                            "apply": "1", "reason": "colluded in room K7QX"})
    assert LeaderboardExclusion.objects.filter(user=cheat.user).exists()
    names = [r.name for r in ratings.leaderboard("ludo")["ranked"]]
    assert names == ["fair"]
    assert RatingModerationLog.objects.get().action == "exclude"
    # Without a reason nothing happens.
    fair = Rating.objects.get(user__username="fair")
    admin_client.post(url, {"action": "exclude_players", "_selected_action": [fair.pk],
                            "apply": "1", "reason": ""})
    assert LeaderboardExclusion.objects.count() == 1


@pytest.fixture
def admin_client(client, django_user_model):
    moderator = django_user_model.objects.create_superuser("mod", "m@example.com", "pw-1-mod")
    client.force_login(moderator)
    return client
