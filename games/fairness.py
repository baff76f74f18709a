"""Provably-fair dice, scheme ``hmac-sha256-dice/1`` (docs/record.md §3).

Before the first roll the table publishes ``sha256(server_seed)``. When the game
starts, the client seed is fixed from what the players' browsers contributed
(``combine_client_seed``). Every die of the game is then
``die(server_seed, client_seed, nonce)`` with the nonce counting dice from 0 in
event order; the server seed is revealed when the game ends, so anyone can
recompute every die (``verify_dice``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any

from .base import fill_template

SCHEME = "hmac-sha256-dice/1"
_CONTRIBUTION = re.compile(r"^[0-9A-Za-z_-]{1,64}$")


def die(server_seed: bytes, client_seed: str, nonce: int) -> int:
    """One fair die, exactly as the normative definition (rejection sampling
    keeps it uniform: 252 = 42 * 6)."""
    counter = 0
    while True:
        msg = f"{client_seed}:{nonce}:{counter}".encode()
        for byte in hmac.new(server_seed, msg, hashlib.sha256).digest():
            if byte < 252:
                return byte % 6 + 1
        counter += 1


def seed_hash(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def new_server_seed() -> bytes:
    return secrets.token_bytes(32)


def valid_contribution(value: object) -> bool:
    return isinstance(value, str) and bool(_CONTRIBUTION.match(value))


def combine_client_seed(contributions: dict[int, str]) -> str:
    """The client seed from the browsers' contributions.

    Each human seat's browser sends a random string (1-64 characters of
    ``[0-9A-Za-z_-]``) before the start. The client seed is those strings in
    seat order, joined with ``.``; seats without a contribution (computer
    players) add nothing. Each player can find their own string in it, so the
    server cannot have chosen the seed alone. With no contribution at all (only
    computer players) the seed is the literal ``"khelaghor"``: the server seed
    commitment still binds the server.
    """
    parts = [c for _, c in sorted(contributions.items()) if valid_contribution(c)]
    return ".".join(parts) if parts else "khelaghor"


def simulated_seeds(seed: int | str, game_index: int) -> tuple[bytes, str]:
    """Reproducible seeds for the simulator's game ``game_index`` of run ``seed``."""
    server = hashlib.sha256(f"khelaghor-simulate:{seed}:{game_index}".encode()).digest()
    return server, f"simulate-{seed}-{game_index}"


@dataclass
class DiceStream:
    """Draws the fair dice of one game, counting the nonce."""

    server_seed: bytes
    client_seed: str
    nonce: int = 0

    def draw(self, count: int) -> list[int]:
        dice = [die(self.server_seed, self.client_seed, self.nonce + i) for i in range(count)]
        self.nonce += count
        return dice


class FairnessError(Exception):
    """A die the seeds do not give. Like GameError, the message is an English
    template with ``{placeholders}`` filled from keyword arguments."""

    def __init__(self, message: str, event_index: int | None = None, **params: Any) -> None:
        self.template = message
        self.params = params
        self.message = fill_template(message, params)
        super().__init__(self.message)
        self.event_index = event_index


def verify_dice(
    server_seed: bytes, client_seed: str, rolled: list[tuple[int, list[int]]]
) -> int:
    """Check every die. ``rolled`` is ``(event_index, dice)`` in event order.
    Returns the number of dice checked; raises FairnessError at the first bad one."""
    nonce = 0
    for index, dice in rolled:
        for position, value in enumerate(dice):
            expected = die(server_seed, client_seed, nonce)
            if value != expected:
                raise FairnessError(
                    "Die {position} of event {index} is {value}, but the seeds give"
                    " {expected} (nonce {nonce})", index,
                    position=position + 1, index=index, value=value, expected=expected,
                    nonce=nonce,
                )
            nonce += 1
    return nonce
