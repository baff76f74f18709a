"""Settings choose the timer backend; both backends share one interface."""

import pytest
from django.test import override_settings

from rooms.timers import InProcessTimers, RedisTimers, TimerBackend, get_timer_backend


def test_default_backend_is_in_process():
    assert isinstance(get_timer_backend(), InProcessTimers)


@override_settings(KHELAGHOR_TIMER_BACKEND="rooms.timers.RedisTimers")
def test_settings_name_the_backend():
    assert isinstance(get_timer_backend(), RedisTimers)


def test_the_interface_cannot_be_instantiated_half_done():
    class OnlySchedules(TimerBackend):
        def schedule(self, game_id, seq, deadline_ts):
            pass

    with pytest.raises(TypeError):
        OnlySchedules()
