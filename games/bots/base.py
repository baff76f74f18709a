"""The computer player interface (see games/bots/__init__.py), apart so that
the kinds in this package can import it without importing the package's
registry of kinds."""

from __future__ import annotations

import random
from typing import Any

Action = dict[str, Any]


class Bot:
    kind = "bot"

    def choose(self, view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
        raise NotImplementedError


class RandomBot(Bot):
    """Uniform over the legal actions."""

    kind = "random"

    def choose(self, view, legal, rng):
        return rng.choice(legal)


class UnknownBot(ValueError):
    pass
