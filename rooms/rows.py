"""Lean SQL for the statements every move makes (docs/performance.md).

The ORM builds and compiles each query anew; on the move path that cost more
CPU than broadcasting the move. These helpers send the statements the ORM would
send, written once from the models' own field lists, and build ordinary model
instances, so the services go on working with ``Room``, ``Game`` and ``Seat``
objects. Everything else uses the ORM.

Locking reads the room row first and its game and seats in later statements:
after waiting for a row lock, PostgreSQL (READ COMMITTED) hands back the newest
version of the locked row, but a row merely joined to it keeps the version the
statement first saw, which may be a move behind. A new statement sees the
commit that released the lock.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from datetime import datetime
from functools import cache, lru_cache
from typing import Any

import psycopg
from django.db import connection
from django.db.models import Model
from django.db.models.base import ModelState
from psycopg.pq import Escaping, Format, TransactionStatus
from psycopg.types.json import Jsonb

from . import threads
from .jsontext import compact_bytes
from .models import Game, MoveLog, Room, Seat


class _Table:
    """A model's table: its columns in field order and how to read them."""

    def __init__(self, model: type[Model]) -> None:
        self.model = model
        self.fields = list(model._meta.concrete_fields)
        self.name = connection.ops.quote_name(model._meta.db_table)
        self.columns = ", ".join(connection.ops.quote_name(f.column) for f in self.fields)
        self.field_names = [f.attname for f in self.fields]
        self.new = model.__new__
        # The converters the ORM applies to each column (JSON text, SQLite dates).
        self.converters = []
        for position, model_field in enumerate(self.fields):
            column = model_field.get_col(model._meta.db_table)
            found = (connection.ops.get_db_converters(column)
                     + column.get_db_converters(connection))
            if found:
                self.converters.append((position, column, found))

    def build(self, row: tuple, db=None) -> Model:
        """The model instance of ``row``, as ``Model.from_db`` makes it, without
        ``Model.__init__``: a move builds six and the constructor's per-field
        loop, descriptors and (receiver-less) signals cost more than reading
        its rows (docs/performance.md). The instance is an ordinary loaded one:
        its fields in ``__dict__`` under their attnames, ``_state`` not adding."""
        db = db or _db()
        values = list(row)
        for position, column, converters in self.converters:
            for convert in converters:
                values[position] = convert(values[position], column, db)
        instance = self.new(self.model)
        instance.__dict__.update(zip(self.field_names, values, strict=True))
        state = instance._state = ModelState()
        state.adding, state.db = False, db.alias
        return instance

    def quoted(self, field_name: str) -> str:
        return connection.ops.quote_name(self.model._meta.get_field(field_name).column)


@cache
def table(model: type[Model]) -> _Table:
    return _Table(model)


ROOM_LOOKUPS = {
    "id": "{room}.id = %s",
    "code": "{room}.code = %s",
    "current_game_id": "{room}.current_game_id = %s",
}


@cache
def _lock_statements(lookup: str, open_only: bool) -> tuple[str, str, str]:
    """The room (locked), its current game, its seats: looked up by ``lookup``."""
    rooms, games, seats = table(Room), table(Game), table(Seat)
    where = ROOM_LOOKUPS[lookup].format(room=rooms.name)
    if open_only:
        where += f" AND {rooms.name}.status <> 'closed'"
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return (
        f"SELECT {rooms.columns} FROM {rooms.name} WHERE {where}{lock}",
        f"SELECT {games.columns} FROM {games.name} WHERE id = "
        f"(SELECT current_game_id FROM {rooms.name} WHERE {where})",
        f"SELECT {seats.columns} FROM {seats.name} WHERE room_id = "
        f"(SELECT id FROM {rooms.name} WHERE {where}) ORDER BY {seats.quoted('index')}",
    )


def lock_room(*, open_only: bool, log_since: tuple[int, int] | None = None,
              **lookup: Any) -> Room | None:
    """The room row-locked (``FOR UPDATE`` where the database has it; SQLite's
    IMMEDIATE transactions lock the whole file), with its current game and its
    seats read after the lock: ``room.current_game``, ``room.locked_seats``.
    One round trip on PostgreSQL.

    ``log_since`` (game id, seq): the caller holds that game's state at that
    seq; the same round trip reads the events logged since, and when the game
    is still the room's current one they are left on it as ``log_tail``
    (seq, events) for ``rooms.state.load_state``. Moves of one table are served
    by whichever process holds the player's socket, so this saved a round trip
    on most moves (docs/performance.md)."""
    ((name, value),) = lookup.items()
    statements = [(statement, [value]) for statement in _lock_statements(name, open_only)]
    if log_since is not None:
        statements.append((_events_sql(), [*log_since]))
    found_room, found_game, found_seats, *found_tail = run(statements)
    if not found_room:
        return None
    db = _db()
    room = table(Room).build(found_room[0], db)
    room.current_game = table(Game).build(found_game[0], db) if found_game else None
    if found_tail and room.current_game is not None and room.current_game.id == log_since[0]:
        room.current_game.log_tail = (log_since[1], _decoded(found_tail[0]))
    room.locked_seats = [table(Seat).build(row, db) for row in found_seats]
    for seat in room.locked_seats:
        Seat.room.field.set_cached_value(seat, room)
    return room


@cache
def _open_room_sql() -> str:
    rooms = table(Room)
    return (f"SELECT {rooms.columns} FROM {rooms.name} WHERE {rooms.name}.code = %s "
            f"AND {rooms.quoted('status')} <> %s ORDER BY {rooms.name}.id LIMIT 1")


def open_room(code: str) -> Room | None:
    """The open room with this code, unlocked: what a door (a socket's
    connect, the room page) looks a code up by. The ORM built this query anew
    on every connect, about 0.7 ms of CPU (docs/performance.md, round 12)."""
    (found,) = run([(_open_room_sql(), [code, Room.Status.CLOSED.value])])
    return table(Room).build(found[0]) if found else None


class Moved(Exception):
    """A command computed from kept rows (rooms.fresh) could not be written as
    computed: its guard found the room changed, or it needed to read the
    database, or it ended without committing. Nothing of it was written; the
    caller does it again under the room's lock."""


# The writes of the guarded command running in this thread, if one is.
_guarded = threading.local()


@contextmanager
def guarded(guard: tuple[str, list[Any]], read_last: tuple[str, list[Any]], then):
    """Run a command computed from kept rows (rooms.fresh), inside its
    ``atomic`` block: its writes wait here and go to the database in one round
    trip with its last (``run(..., end_transaction=True)``, the commit's),
    behind ``guard``, a statement that locks the room row and fails unless the
    room is still as kept (``guard_statement``), and followed by ``read_last``,
    whose rows are handed to ``then`` before the command goes on. Raises
    Moved, with nothing written, when the guard fails, when the command reads
    (``run`` of a SELECT), when it raises anything before its writes went out
    (a refusal is given by the command done again under the lock, on the room
    as it is) or when it ends without them."""
    state = _guarded.state = {"pending": [guard], "sent": False, "last": (read_last, then)}
    try:
        yield
    except Moved:
        raise
    except Exception as exc:
        if state["sent"]:
            raise  # committed: the command's own error, not the kept rows'
        raise Moved(str(exc)) from exc
    finally:
        _guarded.state = None
    if not state["sent"]:
        raise Moved("the command ended without writing")


def _run_guarded(state: dict, statements: list[tuple[str, list[Any]]],
                 end_transaction: bool) -> list[list[tuple]]:
    if any(not sql.startswith(("INSERT ", "UPDATE ")) for sql, _ in statements):
        raise Moved("the command read the database")
    state["pending"].extend(statements)
    if not end_transaction:
        return [[] for _ in statements]
    read_last, then = state["last"]
    _guarded.state = None  # the writes themselves run as any statements
    try:
        *found, last = run([*state["pending"], read_last], end_transaction=True)
    finally:
        _guarded.state = state
    state["sent"] = True
    then(last)
    return found[len(found) - len(statements):]


@cache
def _guard_sql() -> str:
    rooms = table(Room)
    # No room row at that version: COUNT(*) is 0 and the division fails, which
    # ends the round trip there (PostgreSQL skips the statements after an
    # error) with the transaction to roll back. A guard that waited for the
    # row lock sees the row as the command that held it left it.
    return (f"SELECT 1 / COUNT(*) FROM (SELECT id FROM {rooms.name} "
            f"WHERE id = %s AND {rooms.quoted('version')} = %s "
            f"AND {rooms.quoted('status')} <> 'closed' FOR UPDATE) AS kept")


@cache
def _presence_sql() -> str:
    seats = table(Seat)
    return (f"SELECT id, {seats.quoted('connections')}, {seats.quoted('last_seen')}, "
            f"{seats.quoted('disconnected_at')} FROM {seats.name} WHERE room_id = %s")


def presence_statement(room_id: int) -> tuple[str, list[Any]]:
    """The room's seats' presence: (id, connections, last_seen, disconnected_at)."""
    return _presence_sql(), [room_id]


def guard_statement(room_id: int, version: int) -> tuple[str, list[Any]]:
    """The statement that locks room ``room_id`` and fails unless it is still
    at ``version`` (``guarded``). PostgreSQL only."""
    return _guard_sql(), [room_id, version]


def _db():
    """This thread's database wrapper. Read once per call and passed on: each
    attribute read through ``django.db.connection`` is a lookup in asgiref's
    ``Local``, and the field preparations read it many times a move (a tenth
    of a move's CPU went to those lookups; docs/performance.md). In a command
    thread, the wrapper its command holds (``rooms.threads.connection``)."""
    return threads.connection()


def on_commit(func, robust: bool = False) -> None:
    """``transaction.on_commit`` on this thread's wrapper (``_db``)."""
    threads.connection().on_commit(func, robust)


def run(statements: list[tuple[str, list[Any]]], *,
        end_transaction: bool = False) -> list[list[tuple]]:
    """Run ``statements`` in order and return each one's rows ([] for a write):
    in one round trip on PostgreSQL (its client-side binding cursor takes
    several statements at once), one by one on SQLite.

    On PostgreSQL the round trip also carries the transaction's ``BEGIN`` when
    these are its first statements (psycopg would send it in a round trip of
    its own), and its ``COMMIT`` when ``end_transaction`` is set and no
    savepoint or enclosing block could still roll back (``ends_transaction``):
    a move is then two round trips instead of four (docs/performance.md).

    Inside ``guarded`` the statements are writes held back for the guarded
    commit, sent with the last of them."""
    state = getattr(_guarded, "state", None)
    if state is not None:
        return _run_guarded(state, statements, end_transaction)
    db = _db()
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            out = []
            for sql, params in statements:
                cursor.execute(sql, params)
                out.append(cursor.fetchall() if cursor.description else [])
            return out
    if db.force_debug_cursor or db.execute_wrappers:
        # Someone watches the statements (a test capturing queries, an
        # execute wrapper): they go through Django's cursor, which reports
        # them. DEBUG alone does not: its query log misses these statements,
        # and the path servers take is the one every test takes.
        with db.cursor() as cursor:
            return _run_postgresql(db, cursor, *_joined(statements), end_transaction)
    # Otherwise through a cursor kept with the connection, on Django's
    # connection and error handling: Django makes a cursor per statement,
    # and making it and its wrapper cost more CPU than the round trip.
    db.close_if_health_check_failed()
    db.ensure_connection()
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        cursor, escape = _kept_cursor(db)
        bound = _bound(statements, escape)
        if bound is not None:
            return _run_postgresql(db, cursor, bound, None, end_transaction)
        return _run_postgresql(db, cursor, *_joined(statements), end_transaction)


def _joined(statements: list[tuple[str, list[Any]]]) -> tuple[str, list[Any]]:
    """The statements as one SQL text and its parameters, for psycopg to bind."""
    return "; ".join(sql for sql, _ in statements), [p for _, ps in statements for p in ps]


def _bound(statements: list[tuple[str, list[Any]]], escape) -> bytes | None:
    """The statements with their parameters written in as SQL literals, or
    None when a parameter is of a kind not handled here (psycopg binds those
    itself). What psycopg's client-side binding does, for the few kinds a
    move's statements carry: its per-parameter adaptation was a seventh of a
    move's CPU (docs/performance.md). Text is escaped by libpq
    (``PQescapeLiteral``), never by hand."""
    out = []
    for sql, params in statements:
        pieces = _pieces(sql)
        if len(pieces) != len(params) + 1:
            return None
        out.append(pieces[0])
        for value, piece in zip(params, pieces[1:], strict=True):
            literal = _literal(value, escape)
            if literal is None:
                return None
            out.append(literal)
            out.append(piece)
        out.append(b"; ")
    out.pop()
    return b"".join(out)


@lru_cache(maxsize=512)
def _pieces(sql: str) -> list[bytes]:
    """``sql`` split at its ``%s`` placeholders. None of our statements has a
    literal ``%``, which psycopg would read as ``%%``: those are not split."""
    if "%%" in sql or "%(" in sql:
        return []
    return [piece.encode() for piece in sql.split("%s")]


def _literal(value: Any, escape) -> bytes | None:
    if value is None:
        return b"NULL"
    if value is True or value is False:
        return b"true" if value else b"false"
    if isinstance(value, int):
        return int.__repr__(value).encode()
    if isinstance(value, str):
        return escape(value.encode()) if "\x00" not in value else None
    if isinstance(value, datetime) and value.tzinfo is not None:
        return escape(value.isoformat().encode()) + b"::timestamptz"
    if isinstance(value, Jsonb):
        # jsonb keeps the value, not the text: any encoder's text is the same row.
        text = (compact_bytes(value.obj) if value.dumps in (None, json.dumps)
                else value.dumps(value.obj).encode())
        return escape(text) + b"::jsonb" if b"\x00" not in text else None
    return None


# psycopg's own loader of ``timestamptz`` text (its C one where psycopg has
# its C module), for the kept cursor. Django's connections use a Python
# subclass of it that sets the time zone after parsing; a move reads a dozen
# times, and the parsing was a fourteenth of its CPU. The database session's
# time zone is UTC (Django sets it), so the values are the same instants.
_TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid
_FAST_TIMESTAMPTZ_LOADER = psycopg.adapters.get_loader(_TIMESTAMPTZ, Format.TEXT)


def _kept_cursor(db):
    """One client-side binding cursor per database connection, for ``run``,
    with libpq's literal escaping for that connection (``_bound``)."""
    raw = db.connection
    kept = getattr(db, "khelaghor_cursor", None)
    if kept is None or kept[0].connection is not raw or kept[0].closed:
        cursor = psycopg.ClientCursor(raw)
        if db.timezone_name == "UTC" and _FAST_TIMESTAMPTZ_LOADER is not None:
            cursor.adapters.register_loader(_TIMESTAMPTZ, _FAST_TIMESTAMPTZ_LOADER)
        kept = db.khelaghor_cursor = (cursor, Escaping(raw.pgconn).escape_literal)
    return kept


def _run_postgresql(db, cursor, sql: str | bytes, params: list[Any] | None,
                    end_transaction: bool) -> list[list[tuple]]:
    """``sql`` in one round trip on ``cursor`` (psycopg's client-side binding
    cursor, or Django's wrapper of one), with the transaction's BEGIN and
    COMMIT where they belong; ``params`` None when ``sql`` carries its values."""
    raw = db.connection
    begin = _takes_begin(raw)
    if begin:
        raw.autocommit = True  # psycopg: send no BEGIN of its own
        sql = (b"BEGIN; " if isinstance(sql, bytes) else "BEGIN; ") + sql
    commit = end_transaction and ends_transaction(db)
    if commit:
        sql += b"; COMMIT" if isinstance(sql, bytes) else "; COMMIT"
    cursor.execute(sql, params)  # Django's wrapper, if it is one, logs it
    psycopg_cursor = getattr(cursor, "cursor", cursor)
    results = [_rows(psycopg_cursor)]
    while cursor.nextset():
        results.append(_rows(psycopg_cursor))
    if commit:
        # Anything the command still ran would start a new transaction
        # (psycopg's BEGIN) rather than run unguarded in autocommit.
        raw.autocommit = False
    return results[1 if begin else 0:len(results) - 1 if commit else None]


def _takes_begin(raw) -> bool:
    """Whether psycopg would open a transaction before the next statement on
    ``raw``: Django is inside ``atomic`` (autocommit off) and none is open yet.
    Only for plain ``BEGIN`` (no isolation level or read-only set)."""
    return (not raw.autocommit
            and raw.pgconn.transaction_status == TransactionStatus.IDLE
            and raw.isolation_level is None and raw.read_only is None
            and raw.deferrable is None and raw._pipeline is None)


def ends_transaction(db=None) -> bool:
    """Whether committing now ends everything the command did: on PostgreSQL,
    inside exactly one ``atomic`` block and no savepoint. Under a test's
    enclosing transaction or a caller's own block this is False, and Django
    commits (or rolls back) as usual."""
    db = db or _db()
    return (db.vendor == "postgresql" and db.in_atomic_block
            and len(db.atomic_blocks) == 1 and not db.savepoint_ids
            and not db.needs_rollback)


def _rows(psycopg_cursor) -> list[tuple]:
    """The current result's rows, [] for a statement that returns none. Asks
    the result itself: ``cursor.description`` builds a Column object per
    column each time it is read, a tenth of a move's database CPU."""
    result = psycopg_cursor.pgresult
    return psycopg_cursor.fetchall() if result is not None and result.nfields else []


# Pairs per presence UPDATE: a burst of pings is written in a few statements.
SEEN_PAIRS_PER_STATEMENT = 500


@lru_cache(maxsize=64)
def _seen_statement(pairs: int) -> str:
    rooms, seats = table(Room), table(Seat)
    values = ", ".join(["(%s, %s)"] * pairs)
    return (f"UPDATE {seats.name} SET {seats.quoted('last_seen')} = %s "
            f"WHERE {seats.quoted('kind')} = %s AND id IN ("
            f"SELECT s.id FROM {seats.name} s JOIN {rooms.name} r ON r.id = s.room_id "
            f"WHERE r.{rooms.quoted('status')} <> %s "
            f"AND (r.{rooms.quoted('code')}, s.{seats.quoted('session_key')}) "
            f"IN (VALUES {values}))")


# A presence write waits this long at most for a seat row a command holds.
# Its UPDATE locks seats of many rooms at once, which a command writing two
# seats of one room in the other order could deadlock with; the presence
# write then gives way long before PostgreSQL's deadlock check (1 s) could
# pick the command as its victim, and is written again (rooms.seen).
SEEN_LOCK_TIMEOUT = "200ms"


def mark_seen(pairs: list[tuple[str, str]], when) -> None:
    """The human seats of each (room code, session key) in ``pairs`` were seen
    at ``when``, in open rooms only: one UPDATE per SEEN_PAIRS_PER_STATEMENT
    pairs and no room lock, in one transaction of its own
    (rooms.services.presence.seats_seen). Written here because the ORM
    compiling it cost ~1.3 ms of CPU per ping, and batched because a burst of
    pings (the pages of a restarted server reconnect together and then ping
    together every 25 s) queued one statement each in front of the moves
    (docs/performance.md)."""
    db = _db()
    seat_field = Seat._meta.get_field("last_seen")
    head = [seat_field.get_db_prep_save(when, db), Seat.Kind.HUMAN.value,
            Room.Status.CLOSED.value]
    statements = []
    if db.vendor == "postgresql":
        statements.append((f"SET LOCAL lock_timeout = '{SEEN_LOCK_TIMEOUT}'", []))
    for start in range(0, len(pairs), SEEN_PAIRS_PER_STATEMENT):
        chunk = pairs[start:start + SEEN_PAIRS_PER_STATEMENT]
        statements.append((_seen_statement(len(chunk)),
                           head + [value for pair in chunk for value in pair]))
    run(statements, end_transaction=True)


def save_fields(obj: Model, field_names: list[str]) -> None:
    """``obj.save(update_fields=field_names)`` as one plain UPDATE."""
    run([update_statement(obj, field_names)])


@cache
def _update_sql(model: type[Model], field_names: tuple[str, ...]):
    fields = [model._meta.get_field(name) for name in field_names]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
    plain = [_plain_type(f) if connection.vendor == "postgresql" else None for f in fields]
    return (f"UPDATE {table(model).name} SET {assignments} WHERE id = %s",
            list(zip(fields, plain, strict=True)))


def _plain_type(model_field) -> type | None:
    """The Python type whose values ``model_field`` sends to PostgreSQL as they
    are, so they need none of Django's preparation: a whole number for an
    integer column (a key too), text for a text column, an aware time, a
    boolean. Django's preparation of each of a move's fields, a conversion
    that returns what it was given, cost more than writing the move
    (docs/performance.md)."""
    kind = model_field.get_internal_type()
    if kind == "ForeignKey":
        kind = model_field.target_field.get_internal_type()
    if kind in ("IntegerField", "PositiveIntegerField", "PositiveSmallIntegerField",
                "SmallIntegerField", "BigIntegerField", "AutoField", "BigAutoField"):
        return int
    if kind in ("CharField", "TextField"):
        return str
    if kind == "DateTimeField" and not (model_field.auto_now or model_field.auto_now_add):
        return datetime
    if kind == "BooleanField":
        return bool
    return None


def update_statement(obj: Model, field_names: list[str]) -> tuple[str, list[Any]]:
    """The UPDATE that ``obj.save(update_fields=field_names)`` would send."""
    sql, fields = _update_sql(type(obj), tuple(field_names))
    params = []
    db = None
    for model_field, plain in fields:
        value = getattr(obj, model_field.attname)
        if plain is not None and (value is None or (
                type(value) is plain and (plain is not datetime or value.tzinfo is not None))):
            params.append(value)
            continue
        db = db or _db()
        params.append(model_field.get_db_prep_save(model_field.pre_save(obj, False), db))
    return sql, [*params, obj.pk]


@cache
def _moves_insert() -> tuple[str, str, list, str, tuple[int, int]]:
    """The move log's INSERT: its head, one row's placeholders, the fields
    written, the table, and where seq and event sit in a row. Written once:
    quoting the column names on every move read ``django.db.connection`` a
    dozen times (docs/performance.md)."""
    model_table = table(MoveLog)
    fields = [f for f in model_table.fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    names = [f.attname for f in fields]
    return (f"INSERT INTO {model_table.name} ({columns}) VALUES ",
            "(" + ", ".join(["%s"] * len(fields)) + ")", fields, model_table,
            (names.index("seq"), names.index("event")))


def moves_statement(game_row: Game, moves: list[tuple[int, dict[str, Any]]]):
    """One INSERT of ``moves`` ((seq, event) pairs) into the game's move log.
    The fields other than ``seq`` and ``event`` (the game, the time) are the
    same for every move of a command: prepared once, from one model instance,
    rather than an instance and every field's preparation per move; each
    move's row is that one with its seq and event put in."""
    db = _db()
    head, placeholders, fields, model_table, (at_seq, at_event) = _moves_insert()
    first = model_table.new(MoveLog)  # for pre_save only: no Model.__init__
    first.__dict__.update(game_id=game_row.id, seq=moves[0][0], event=moves[0][1])
    shared = [None if f.attname in ("seq", "event")
              else f.get_db_prep_save(f.pre_save(first, True), db) for f in fields]
    prepare_event = fields[at_event].get_db_prep_save
    params = []
    for seq, event in moves:
        shared[at_seq], shared[at_event] = seq, prepare_event(event, db)
        params += shared
    return head + ", ".join([placeholders] * len(moves)), params


def events_between(game_id: int, since: int, until: int) -> list[dict[str, Any]]:
    """The move log's events with ``since <= seq < until``, in order."""
    moves = table(MoveLog)
    (found,) = run([(
        f"SELECT {moves.quoted('event')} FROM {moves.name} WHERE game_id = %s "
        f"AND seq >= %s AND seq < %s ORDER BY seq",
        [game_id, since, until],
    )])
    return _decoded(found)


@cache
def _events_sql() -> str:
    moves = table(MoveLog)
    return (f"SELECT {moves.quoted('event')} FROM {moves.name} WHERE game_id = %s "
            f"AND seq >= %s ORDER BY seq")


def _decoded(found: list[tuple]) -> list[dict[str, Any]]:
    # JSON arrives as text on both databases (Django asks psycopg for text).
    return [json.loads(event) if isinstance(event, str) else event for (event,) in found]
