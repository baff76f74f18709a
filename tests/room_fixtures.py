"""Fixtures shared by the test packages that drive rooms through services and the admin."""

import uuid

import pytest
from django.core.cache import cache

from rooms import clock, fresh, services
from rooms.services import Actor
from rooms.timers import reset_timer_backend


def person(name: str = "Tanvir") -> Actor:
    """A guest of their own: a fresh session key, as a new browser would have."""
    return Actor(session_key=uuid.uuid4().hex, name=name)


def _forget_the_process_state() -> None:
    """What a test process keeps between tests: the game states, the timer
    backend's deadlines (the in-process heap) and the rooms' kept rows. A
    deadline another test armed for a game with the same id, due once a test
    moves the clock on, showed in that test's claims (a flaky CI run)."""
    services.forget_cached_states()
    reset_timer_backend()
    fresh.forget_all()


@pytest.fixture(autouse=True)
def _instant_computers_and_fresh_state(settings):
    settings.KHELAGHOR_BOT_DELAY = 0
    clock.reset()
    cache.clear()
    _forget_the_process_state()
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
    _forget_the_process_state()
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
