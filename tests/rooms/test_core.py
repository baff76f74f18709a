"""The rooms' public core (rooms/services/core.py): a command writes the room's
fields through ``commit`` only, and a field it changed but did not name fails
loudly instead of silently never reaching the database."""

from __future__ import annotations

import pytest
from django.db import transaction

from rooms import services
from rooms.models import Room
from tests.room_fixtures import person

pytestmark = pytest.mark.django_db


@pytest.fixture
def room():
    return services.room_create(actor=person("Tanvir"), game="ludo", seats=2)


def test_a_changed_room_field_that_commit_was_not_told_of_fails_loudly(room):
    with pytest.raises(services.UncommittedChange, match="pace"):
        with transaction.atomic():
            locked = services.locked(room.code)
            locked.pace = Room.Pace.PARTY
            services.commit(locked, services.Change(locked.id))
    after = Room.objects.get(id=room.id)
    assert (after.pace, after.version) == (Room.Pace.NORMAL, room.version)


def test_commit_writes_the_fields_it_is_told_of(room):
    with transaction.atomic():
        locked = services.locked(room.code)
        locked.pace = Room.Pace.PARTY
        services.commit(locked, services.Change(locked.id), room_fields=("pace",))
    after = Room.objects.get(id=room.id)
    assert (after.pace, after.version) == (Room.Pace.PARTY, room.version + 1)


def test_commit_needs_a_locked_room(room):
    with pytest.raises(services.UncommittedChange, match="locked"):
        with transaction.atomic():
            services.commit(Room.objects.get(id=room.id), services.Change(room.id))
    assert Room.objects.get(id=room.id).version == room.version
