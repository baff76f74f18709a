"""Ratings: one per game for each account, updated once when a rated game ends.

Which games count: public quick-play tables, and private tables whose host
ticked "rated" before the start (``Room.options["rated"]``). The finishing
order of every seat is one free-for-all result, rated with OpenSkill's
Plackett-Luce model (made for multiplayer rankings). Only accounts are
updated, and only for a seat the player mostly played themselves:

- a computer seat is a fixed-strength opponent (its game's ``bot_ratings``, one per kind,
  never changed by people's games), so a game against computers still teaches
  the system something;
- a guest is an unknown newcomer (the default rating), not updated;
- a seat that a computer played for more than half of its decisions (it timed
  out, was taken over, or its player left; read from the move log) is not rated
  for that player, who still counts as an opponent with their current rating.

The update runs after the game's commit on a background thread, so it never
slows or breaks a move. ``RatedGame``'s unique key makes it happen exactly once
even when two processes see the same game end, and the rows of the ratings it
changes are locked in one order, so games finishing at once never lose an update.
A ``RatingDue`` row, written with the game's end, remembers the work until it is
done: if the process dies before its thread gets to it, the timers' sweep rates
the game later (``rate_overdue``).

Once the new ratings are committed, the room hears how each rated seat's rating
moved (a ``ratings`` message, docs/protocol.md), so the results panel can say
so; a page that loads later finds the same in its snapshot
(``rooms.selectors.finished_game_ratings``).
"""

from __future__ import annotations

import contextvars
import logging
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Any

from django.db import (
    DatabaseError,
    IntegrityError,
    close_old_connections,
    connection,
    transaction,
)
from openskill.models import PlackettLuce

from games.registry import declaration, get_game
from rooms import clock, publish
from rooms.models import Game, MoveLog, Room
from rooms.selectors import is_rated_table, rating_change_json

from .models import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    LeaderboardExclusion,
    RatedGame,
    Rating,
    RatingChange,
    RatingDue,
    RatingModerationLog,
)

log = logging.getLogger(__name__)

MODEL = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)

# Computer players as opponents: each game declares a mu per kind
# (Declaration.bot_ratings), measured by scripts/calibrate_bot_ratings.py (300
# simulated 4-seat games, the same model, every kind starting as a newcomer;
# figures rounded). They are never updated by people's games; BOT_SIGMA says "we
# know this opponent", so a result against one moves the person, and beating a
# strong computer is worth more. The leaderboards' URLs use the games' slugs.
BOT_SIGMA = 2.0
UNKNOWN_BOT = 25.0  # external programs, or a kind added later


# ---- which games and seats count ---------------------------------------------------
# Which tables are rated is ``is_rated_table`` (rooms.selectors, which also
# reads a finished game's rating changes into its snapshot).


def computer_share(game: str, events: Iterable[dict[str, Any]]) -> dict[int, tuple[int, int]]:
    """Per seat: (decisions a computer made for it, decisions in all).

    A decision is a record event by that seat. A computer made it when the seat
    was held (from ``takeover`` until ``reclaim``) or when it answered the
    seat's ``timeout`` (the computer plays that one decision)."""
    engine = get_game(game)
    held: set[int] = set()
    timed_out: set[int] = set()
    by_computer: Counter[int] = Counter()
    decisions: Counter[int] = Counter()
    for event in events:
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "takeover":
            held.add(seat)
        elif kind == "reclaim":
            held.discard(seat)
        elif kind == "timeout":
            timed_out.add(seat)
        elif kind in engine.record_event_types:
            mapped = engine.action_from_event(event)
            if mapped is None or mapped[0] is None:
                continue  # dealt or rolled by the table, no one's decision
            seat = mapped[0]
            decisions[seat] += 1
            if seat in held or seat in timed_out:
                by_computer[seat] += 1
            timed_out.discard(seat)
    return {seat: (by_computer[seat], decisions[seat]) for seat in decisions}


def mostly_computer(share: tuple[int, int]) -> bool:
    by_computer, decisions = share
    return 2 * by_computer > decisions


def ranks_of(placings: list[int], seats: int) -> list[int]:
    """Finishing place per seat (1 = won); seats with no place share the last."""
    ranks = [len(placings) + 1] * seats
    for place, seat in enumerate(placings, start=1):
        if 0 <= seat < seats:
            ranks[seat] = place
    return ranks


# ---- the update --------------------------------------------------------------------


@dataclass(frozen=True)
class SeatAtEnd:
    """Who sat in a seat when the game ended (captured under the room's lock)."""

    index: int
    kind: str  # human or bot
    user_id: int | None
    bot_kind: str = ""


def rate_game(game_id: int, seats: list[SeatAtEnd]) -> int | None:
    """Update the ratings of ``game_id``'s account seats, and once that commits
    tell the room how they moved. Returns how many changed, or None when the
    game was rated already (by this or another process)."""
    with transaction.atomic():
        game = Game.objects.get(id=game_id)
        # Whatever happens below, this game's rating is no longer due.
        RatingDue.objects.filter(game_id=game_id).delete()
        if game.status != Game.Status.FINISHED:
            return 0
        try:
            with transaction.atomic():
                marker = RatedGame.objects.create(game=game, players=0)
        except IntegrityError:
            return None  # someone else rated it: exactly once
        events = MoveLog.objects.filter(game_id=game_id).order_by("seq").values_list(
            "event", flat=True)
        share = computer_share(game.game, events)
        # One account in two seats (two browsers) is not a result about that player.
        seats_of = Counter(s.user_id for s in seats if s.kind == "human")
        rated_users = {
            s.index: s.user_id for s in seats
            if s.kind == "human" and s.user_id is not None and seats_of[s.user_id] == 1
            and not mostly_computer(share.get(s.index, (0, 0)))
        }
        if not rated_users:
            return 0
        ratings = _locked_ratings(game.game, set(rated_users.values()))
        # Accounts not rated this time still count as opponents, as they stand.
        others = {s.user_id for s in seats if s.user_id} - set(ratings)
        ratings.update({r.user_id: r for r in Rating.objects.filter(game=game.game,
                                                                    user_id__in=others)})
        teams = [[_opponent(game.game, s, ratings)] for s in sorted(seats, key=lambda s: s.index)]
        ranks = ranks_of(game.placings, len(seats))
        updated = MODEL.rate(teams, ranks=ranks)
        moved = []
        for index, user_id in sorted(rated_users.items()):
            rating = ratings[user_id]
            new, before = updated[index][0], rating.mu  # a newcomer's is the default
            rating.mu, rating.sigma, rating.games = new.mu, new.sigma, rating.games + 1
            rating.save(update_fields=["mu", "sigma", "games", "updated_at"])
            RatingChange.objects.create(rating=rating, game=game, seat=index, mu_before=before,
                                        mu=new.mu, sigma=new.sigma)
            moved.append(rating_change_json(index, before, new.mu))
        marker.players = len(rated_users)
        marker.save(update_fields=["players"])
        # Not before the commit: a page must never show a rating that was rolled back.
        message = {"type": "room.ratings", "game": game_id, "changes": moved}
        transaction.on_commit(lambda: publish.send_to_room(game.room_id, message), robust=True)
        return len(rated_users)


def _locked_ratings(game: str, user_ids: set[int]) -> dict[int, Rating]:
    """The players' ratings in ``game`` (created if new), row-locked in id
    order: two games ending at once wait for each other instead of losing one
    update, and cannot deadlock."""
    for user_id in sorted(user_ids):
        Rating.objects.get_or_create(user_id=user_id, game=game)
    locked = Rating.objects.select_for_update().filter(
        game=game, user_id__in=user_ids).order_by("id")
    return {rating.user_id: rating for rating in locked}


def _opponent(game: str, seat: SeatAtEnd, ratings: dict[int, Rating]):
    if seat.kind == "bot":
        mu = declaration(game).bot_ratings.get(seat.bot_kind.split(":")[0], UNKNOWN_BOT)
        return MODEL.rating(mu=mu, sigma=BOT_SIGMA)
    if seat.user_id in ratings:
        rating = ratings[seat.user_id]
        return MODEL.rating(mu=rating.mu, sigma=rating.sigma)
    return MODEL.rating()  # a guest: an unknown newcomer


# ---- after the game's commit, off the move path ----------------------------------

_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ratings")


def game_finished(room: Room, game: Game, seats) -> None:
    """Called by ``rooms.services`` in the transaction that ends ``game``: the
    ratings are updated after it commits, on a background thread."""
    try:
        if not is_rated_table(room):
            return
        at_end = [SeatAtEnd(s.index, s.kind, s.user_id, s.bot_kind) for s in seats]
        if not any(s.kind == "human" and s.user_id is not None for s in at_end):
            return  # guests and computers only: no rating to change
        game_id = game.id
        # Savepoint: a failure here must not break the transaction ending the game.
        with transaction.atomic():
            RatingDue.objects.create(game_id=game_id, seats=[asdict(s) for s in at_end])
        transaction.on_commit(lambda: _submit(game_id, at_end), robust=True)
    except Exception:  # the move that ended the game stands whatever happens here
        log.exception("rating game %s not scheduled", game.id)


# A due rating older than this was lost with its process (the thread takes
# well under a second): the sweep does it.
OVERDUE_AFTER = timedelta(minutes=1)


def rate_overdue(limit: int = 50) -> int:
    """Rate the games whose update was due over OVERDUE_AFTER ago: their process
    died between the game's end and its rating thread. Exactly once still holds
    (``RatedGame``), so a game that was rated meanwhile is only cleared.
    Returns how many games it looked at."""
    due = list(RatingDue.objects.filter(created_at__lt=clock.now() - OVERDUE_AFTER)
               .order_by("created_at")[:limit])
    for row in due:
        try:
            rate_game(row.game_id, [SeatAtEnd(**seat) for seat in row.seats])
        except DatabaseError:  # the database blinked: the row stays for the next sweep
            log.exception("rating game %s failed; trying again later", row.game_id)
            break
        except Exception:  # a row that cannot be rated must not block the others
            log.exception("rating game %s failed", row.game_id)
            RatingDue.objects.filter(game_id=row.game_id).delete()
    return len(due)


def _submit(game_id: int, seats: list[SeatAtEnd]) -> Future:
    # In a copy of the context of the command that ended the game: the thread
    # then sends the room its new ratings through that command's event loop,
    # as the game's own updates went (rooms.publish.send_to_room).
    return _worker.submit(contextvars.copy_context().run, _rate_in_background, game_id, seats)


def _rate_in_background(game_id: int, seats: list[SeatAtEnd]) -> None:
    close_old_connections()
    try:
        rate_game(game_id, seats)
    except Exception:  # a rating must never take anything else down
        log.exception("rating game %s failed", game_id)
    finally:
        connection.close()


# ---- reads: the leaderboards and the profile --------------------------------------

MIN_GAMES = 5  # fewer rated games than this: listed apart, the rating still settling
LEADERBOARD_SIZE = 100
CHART_W, CHART_H, CHART_POINTS = 240, 64, 40


@dataclass(frozen=True)
class Row:
    rank: int | None
    name: str
    mu: float
    sigma: float
    games: int

    @property
    def shown(self) -> str:
        return f"{self.mu:.1f}"

    @property
    def uncertainty(self) -> str:
        """± two standard deviations: the rating is in this range 95 times in 100."""
        return f"{2 * self.sigma:.1f}"


def leaderboard(game: str) -> dict[str, list[Row]]:
    """The rated accounts of ``game``, best first; newcomers apart. Accounts a
    moderator excluded are left out."""
    found = (Rating.objects.filter(game=game, games__gt=0, user__is_active=True,
                                   user__leaderboard_exclusion__isnull=True)
             .select_related("user").order_by("-mu", "sigma", "id"))
    ranked = found.filter(games__gte=MIN_GAMES)[:LEADERBOARD_SIZE]
    newcomers = found.filter(games__lt=MIN_GAMES).order_by("-games", "-mu", "id")[
        :LEADERBOARD_SIZE]
    return {
        "ranked": [Row(i, r.user.get_username(), r.mu, r.sigma, r.games)
                   for i, r in enumerate(ranked, start=1)],
        "newcomers": [Row(None, r.user.get_username(), r.mu, r.sigma, r.games)
                      for r in newcomers],
    }


def profile_ratings(user) -> list[dict[str, Any]]:
    """Each of the account's ratings with the geometry of its history chart."""
    out = []
    for rating in Rating.objects.filter(user=user, games__gt=0).order_by("game"):
        history = list(rating.changes.order_by("-created_at", "-id")[:CHART_POINTS])[::-1]
        points = [(DEFAULT_MU, DEFAULT_SIGMA)] if len(history) < CHART_POINTS else []
        points += [(c.mu, c.sigma) for c in history]
        out.append({
            "game": rating.game,
            "slug": declaration(rating.game).slug,
            "title": get_game(rating.game).title,
            "row": Row(None, user.get_username(), rating.mu, rating.sigma, rating.games),
            "settled": rating.games >= MIN_GAMES,
            "chart": history_chart(points),
        })
    return out


def history_chart(points: list[tuple[float, float]]) -> dict[str, Any]:
    """A line of the rating after each game, inside a band of ± two sigma."""
    lows = [mu - 2 * sigma for mu, sigma in points]
    highs = [mu + 2 * sigma for mu, sigma in points]
    bottom, top = min(lows), max(highs)
    span = (top - bottom) or 1.0
    step = CHART_W / max(1, len(points) - 1)

    def y(value: float) -> float:
        return round(CHART_H - 4 - (value - bottom) / span * (CHART_H - 8), 1)

    xs = [round(i * step, 1) for i in range(len(points))]
    line = " ".join(f"{x},{y(mu)}" for x, (mu, _) in zip(xs, points, strict=True))
    band = " ".join(
        [f"{x},{y(high)}" for x, high in zip(xs, highs, strict=True)]
        + [f"{x},{y(low)}" for x, low in reversed(list(zip(xs, lows, strict=True)))]
    )
    return {"width": CHART_W, "height": CHART_H, "line": line, "band": band,
            "last_x": xs[-1], "last_y": y(points[-1][0]), "points": len(points)}


# ---- moderation ---------------------------------------------------------------------


@transaction.atomic
def rating_reset(rating: Rating, *, moderator, reason: str) -> None:
    """Back to a newcomer's rating: its history goes, the log keeps what it was."""
    locked = Rating.objects.select_for_update().get(pk=rating.pk)
    before = f"{locked.mu:.2f} ± {locked.sigma:.2f}, {locked.games} games"
    locked.changes.all().delete()
    locked.mu, locked.sigma, locked.games = DEFAULT_MU, DEFAULT_SIGMA, 0
    locked.save(update_fields=["mu", "sigma", "games", "updated_at"])
    RatingModerationLog.objects.create(
        moderator=moderator, action=RatingModerationLog.Action.RESET, user_id=locked.user_id,
        game=locked.game, before=before, reason=reason)


@transaction.atomic
def leaderboard_exclude(user, *, moderator, reason: str) -> bool:
    """Keep ``user`` off every leaderboard; False if they were already."""
    _exclusion, created = LeaderboardExclusion.objects.get_or_create(
        user=user, defaults={"reason": reason, "created_by": moderator})
    if created:
        RatingModerationLog.objects.create(
            moderator=moderator, action=RatingModerationLog.Action.EXCLUDE, user=user,
            reason=reason)
    return created


@transaction.atomic
def leaderboard_include(exclusion: LeaderboardExclusion, *, moderator, reason: str) -> None:
    user = exclusion.user
    exclusion.delete()
    RatingModerationLog.objects.create(
        moderator=moderator, action=RatingModerationLog.Action.INCLUDE, user=user,
        before=exclusion.reason[:100], reason=reason)
