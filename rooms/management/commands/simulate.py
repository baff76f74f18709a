"""`manage.py simulate`: see `games.cli.simulate_main`."""

from games import cli

from ._engine_command import engine_command

Command = engine_command(cli.simulate_main)
