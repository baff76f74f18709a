"""`manage.py tournament`: see `games.cli.tournament_main`."""

from games import cli

from ._engine_command import engine_command

Command = engine_command(cli.tournament_main)
