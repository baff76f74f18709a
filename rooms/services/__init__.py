"""Everything that changes a room: one function per command (HackSoft's services).

Each command runs in one ``transaction.atomic()`` holding the room's row lock
(``select_for_update`` on PostgreSQL; on SQLite every transaction takes the
write lock at BEGIN, see settings), so a room applies one command at a time,
whatever process it arrives in. A command appends its events to the move log,
bumps the room's version, and *after commit* broadcasts every seat its own view
and arms the next deadline (``rooms.publish``). Consumers and views are thin:
they parse, call one of these, and turn ``RoomError`` into a reply.

The commands are grouped by what they are about: ``lobby``, ``play``,
``presence``, ``upkeep`` (and ``rooms.moderation``), all made of the public
``core`` (lock a room with its seats, commit with the changed fields, open a
seat, seat a computer, re-arm the timer). Reads are in ``rooms.selectors``, the
engine state in ``rooms.state``. Callers use this package:
``from rooms import services; services.seat_join(...)``.
"""

from ..selectors import (
    current_game,
    game_record,
    room_get,
    seat_index_of,
    snapshot_for,
    turn_snapshot_for,
)
from ..state import forget_cached_states, load_state
from .core import (
    AWAY_FOR_TAKEOVER,
    BOT_DELAY,
    FINISHED_IDLE,
    LOBBY_IDLE,
    PLAYING_IDLE,
    QUICK_PLAY_WAIT,
    TABLE_CHOICES,
    TIMEOUTS_FOR_TAKEOVER,
    Actor,
    Change,
    UncommittedChange,
    bot_delay,
    check_not_banned,
    commit,
    locked,
    locked_seat,
    locked_where,
    log_table_event,
    open_seat,
    rearm,
    seat_bot,
    seats_held,
)
from .lobby import (
    bot_add,
    bot_remove,
    device_player_add,
    device_player_remove,
    game_start,
    host_take,
    options_set,
    play_now,
    room_create,
    seat_free,
    seat_join,
    seat_leave,
    seat_seed,
)
from .play import (
    CLAIM_GRACE_SECONDS,
    deadline_fire,
    game_action,
    room_autostart,
    room_start_now,
    seat_reclaim,
)
from .presence import (
    SEEN_EVERY,
    connection_closed,
    connection_opened,
    connections_closed,
    seats_seen,
)
from .upkeep import clocks_beat, room_close, rooms_expire

__all__ = [
    "AWAY_FOR_TAKEOVER", "BOT_DELAY", "CLAIM_GRACE_SECONDS", "FINISHED_IDLE", "LOBBY_IDLE",
    "PLAYING_IDLE",
    "QUICK_PLAY_WAIT", "SEEN_EVERY", "TABLE_CHOICES", "TIMEOUTS_FOR_TAKEOVER",
    "Actor", "Change", "UncommittedChange",
    "bot_add", "bot_delay", "clocks_beat", "bot_remove", "check_not_banned", "device_player_add",
    "device_player_remove", "seats_held", "turn_snapshot_for", "commit", "connection_closed",
    "connection_opened", "connections_closed", "current_game", "deadline_fire",
    "forget_cached_states", "game_action",
    "game_record", "game_start", "host_take", "load_state", "locked", "locked_seat", "locked_where",
    "log_table_event", "open_seat", "options_set", "play_now", "rearm", "room_autostart",
    "room_close", "room_create", "room_get", "room_start_now", "rooms_expire", "seat_bot",
    "seat_index_of",
    "seat_free", "seat_join", "seat_leave", "seat_reclaim", "seat_seed", "seats_seen",
    "snapshot_for",
]
