"""`manage.py replay`: see `games.cli.replay_main`."""

from games import cli

from ._engine_command import engine_command

Command = engine_command(cli.replay_main)
