"""Turn timers: the seam between rooms and whatever remembers deadlines.

A room schedules a deadline for the move numbered `seq`; whoever polls calls
`claim_due(now)` and gets each due (game_id, seq) exactly once, even with several
daphne processes polling. `seq` makes a stale deadline harmless: a move that
already happened bumped the room's seq, so the claimed timeout no longer matches.

Two backends share this interface, chosen by settings.KHELAGHOR_TIMER_BACKEND:
InProcessTimers for one process (development, unit tests) and RedisTimers for
production. Both are stubs here; the rooms work fills them in, tested by one
shared contract test, as Django's session backends are.
"""

from abc import ABC, abstractmethod

from django.conf import settings
from django.utils.module_loading import import_string


class TimerBackend(ABC):
    @abstractmethod
    def schedule(self, game_id: str, seq: int, deadline_ts: float) -> None:
        """Remember that move `seq` of `game_id` times out at `deadline_ts` (Unix seconds).

        Replaces any deadline already scheduled for the game.
        """

    @abstractmethod
    def cancel(self, game_id: str) -> None:
        """Forget the game's deadline, if any."""

    @abstractmethod
    def claim_due(self, now: float) -> list[tuple[str, int]]:
        """Remove and return every (game_id, seq) whose deadline is <= now."""


class InProcessTimers(TimerBackend):
    def schedule(self, game_id: str, seq: int, deadline_ts: float) -> None:
        raise NotImplementedError("InProcessTimers is a stub until the rooms work lands")

    def cancel(self, game_id: str) -> None:
        raise NotImplementedError("InProcessTimers is a stub until the rooms work lands")

    def claim_due(self, now: float) -> list[tuple[str, int]]:
        raise NotImplementedError("InProcessTimers is a stub until the rooms work lands")


class RedisTimers(TimerBackend):
    def schedule(self, game_id: str, seq: int, deadline_ts: float) -> None:
        raise NotImplementedError("RedisTimers is a stub until the rooms work lands")

    def cancel(self, game_id: str) -> None:
        raise NotImplementedError("RedisTimers is a stub until the rooms work lands")

    def claim_due(self, now: float) -> list[tuple[str, int]]:
        raise NotImplementedError("RedisTimers is a stub until the rooms work lands")


def get_timer_backend() -> TimerBackend:
    """Instantiate the backend named by settings.KHELAGHOR_TIMER_BACKEND."""
    backend_class = import_string(settings.KHELAGHOR_TIMER_BACKEND)
    return backend_class()
