"""The fourth game of tests/toy, added the way any game is: one registry line.
Its templates and static files live beside it, so the test adds their folders
to the settings (a real game keeps them in templates/ and static/)."""

from pathlib import Path

import pytest

from games import registry
from tests.room_fixtures import (  # noqa: F401 - pytest finds fixtures by name
    _instant_computers_and_fresh_state,
    admin_client,
    moderator,
)

TOY = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def highroll(settings):
    templates = [dict(engine) for engine in settings.TEMPLATES]
    templates[0]["DIRS"] = [*templates[0]["DIRS"], TOY / "templates"]
    settings.TEMPLATES = templates
    settings.STATICFILES_DIRS = [*settings.STATICFILES_DIRS, TOY / "static"]
    declared = registry.register("tests.toy.highroll")  # the one line a game adds
    yield declared
    registry.unregister(declared.id)
