"""Khelaghor's game engines: pure Python, no Django, no I/O, no clock.

``games.base`` is the interface every game implements; ``games.registry`` finds a
game by name; ``games.fairness`` is the provably-fair dice scheme;
``games.record`` writes, reads and replays game records; ``games.bots`` holds the
computer players; ``games.simulate`` plays whole games between bots.
"""
