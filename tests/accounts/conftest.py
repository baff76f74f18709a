from tests.room_fixtures import _fast_passwords  # noqa: F401 - pytest finds fixtures by name
