"""The shared shape of the engine commands (simulate, replay, tournament)."""

import sys

from django.core.management.base import BaseCommand

from games import cli


def engine_command(main):
    """A manage.py command that hands its arguments to ``games.cli``'s ``main``.

    The engines' own parser reads them, so errors are one line with exit status 2
    as the docs promise, and the command touches no database."""

    class Command(BaseCommand):
        help = main.__doc__ or main.__name__
        requires_system_checks = []
        requires_migrations_checks = False

        def run_from_argv(self, argv):  # argv: [manage.py, NAME, ...]
            sys.exit(cli.run(main, argv[2:]))

    return Command
