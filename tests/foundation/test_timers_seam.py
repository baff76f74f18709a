"""Settings choose the timer backend; both backends share one interface."""

import pytest
from django.test import override_settings

from rooms.timers import (
    InProcessTimers,
    RedisTimers,
    TimerBackend,
    get_timer_backend,
    reset_timer_backend,
)


@pytest.fixture(autouse=True)
def _fresh_backend():
    # The backend is built once per process; each test here asks the settings anew.
    reset_timer_backend()
    yield
    reset_timer_backend()


def test_default_backend_is_in_process():
    assert isinstance(get_timer_backend(), InProcessTimers)


@override_settings(KHELAGHOR_TIMER_BACKEND="rooms.timers.RedisTimers",
                   KHELAGHOR_REDIS_URL="redis://127.0.0.1:6379/15")
def test_settings_name_the_backend():
    assert isinstance(get_timer_backend(), RedisTimers)


def test_the_interface_cannot_be_instantiated_half_done():
    class OnlySchedules(TimerBackend):
        def schedule(self, key, payload, deadline_ts):
            pass

    with pytest.raises(TypeError):
        OnlySchedules()
