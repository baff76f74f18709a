"""Fixtures shared by the test packages that drive rooms through services and the admin."""

import uuid

import pytest
from django.core.cache import cache

from rooms import clock, services
from rooms.services import Actor


def person(name: str = "Tanvir") -> Actor:
    """A guest of their own: a fresh session key, as a new browser would have."""
    return Actor(session_key=uuid.uuid4().hex, name=name)


@pytest.fixture(autouse=True)
def _instant_computers_and_fresh_state(settings):
    settings.KHELAGHOR_BOT_DELAY = 0
    clock.reset()
    cache.clear()
    services.forget_cached_states()
    yield
    clock.reset()


@pytest.fixture
def paced_computers(settings):
    """Computers play at a human pace (1 s), on a fresh clock and state cache:
    for tests that drive the clock themselves and must see each computer move
    come from its own deadline. Ask for it with
    ``pytestmark = pytest.mark.usefixtures("paced_computers")``."""
    settings.KHELAGHOR_BOT_DELAY = 1.0
    clock.reset()
    services.forget_cached_states()
    yield
    clock.reset()


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Passwords hashed in this test process take microseconds, not Django's
    default ~0.5 s of PBKDF2 per hash and per check (a sign-in rate-limit test
    checks eleven). What is stored or refused is the same; servers the tests
    start keep the real hashers."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def moderator(db, django_user_model):
    return django_user_model.objects.create_superuser("mod", "mod@example.com", "pw-for-tests-1")


@pytest.fixture
def admin_client(client, moderator):
    client.force_login(moderator)
    return client
