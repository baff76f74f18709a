"""`manage.py simulate`: see `games.cli.simulate_main`. Touches no database."""

import sys

from django.core.management.base import BaseCommand

from games import cli


class Command(BaseCommand):
    help = cli.simulate_main.__doc__ or "simulate"
    requires_system_checks = []
    requires_migrations_checks = False

    def run_from_argv(self, argv):
        # argv: [manage.py, simulate, ...]; the engines' own parser takes the rest, so
        # errors are one line with exit status 2 as the docs promise.
        sys.exit(cli.run(cli.simulate_main, argv[2:]))
