from tests.room_fixtures import (  # noqa: F401 - pytest finds fixtures by name
    _fast_passwords,
    _instant_computers_and_fresh_state,
    admin_client,
    moderator,
)
