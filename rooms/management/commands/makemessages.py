"""``makemessages`` that also extracts the server's error messages.

Errors are written ``raise errors.BadMessage("There is no such seat")`` and,
in the Django-free engines, ``raise IllegalAction("There is no token {token}",
token=7)``: the sentence is a catalogue string that the consumer translates
for each socket (rooms/errors.py). Rather than wrap every sentence in a
marker, every error class is an xgettext keyword here, like ``gettext_noop``.
``N_`` (games/base.py) marks the few sentences that are not an error's first
argument, and ``locked_seat``'s third argument is a NotSeated refusal.
"""

from django.core.management.commands import makemessages

from games import base as engine_base
from games.fairness import FairnessError
from games.record import RecordError
from rooms import errors, guessing, moderation  # noqa: F401  (their RoomError subclasses)


def message_keywords() -> list[str]:
    """xgettext ``--keyword`` specs: every error class of rooms/ and games/."""
    names = set(errors.error_class_names())
    todo = [engine_base.GameError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    names |= {RecordError.__name__, FairnessError.__name__, "N_"}
    return sorted(names) + ["locked_seat:3"]


class Command(makemessages.Command):
    def handle(self, *args, **options):
        # An instance attribute: handle() then adds --no-location etc. to it.
        self.xgettext_options = makemessages.Command.xgettext_options + [
            f"--keyword={keyword}" for keyword in message_keywords()
        ]
        return super().handle(*args, **options)
