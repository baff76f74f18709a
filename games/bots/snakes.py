"""Snakes & Ladders has one decision, to roll, so every kind rolls."""

from . import Bot, register


class RollBot(Bot):
    kind = "standard"

    def choose(self, view, legal, rng):
        return legal[0]


register("snakes", "standard", lambda param: RollBot())
