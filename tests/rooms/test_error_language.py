"""Every message the server sends is in the socket's language (issue 14).

Errors are catalogue strings (rooms/errors.py), translated at the consumer
with the language the socket's page had (the language cookie, else the
browser's Accept-Language); the ``code`` never changes. The second half checks
the catalogue itself: every error sentence written in rooms/ and games/ is a
plain string (no f-string, which no catalogue can hold) with a Bengali
translation in locale/bn/LC_MESSAGES/django.po.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from rooms import errors, services
from tests.rooms.test_consumer import aguest, guest_session, receive

REPO = Path(__file__).resolve().parent.parent.parent
ASCII_DIGIT = re.compile(r"[0-9]")
BENGALI_LETTER = re.compile(r"[\u0980-\u09FF]")


async def socket_in(code: str, key: str, *, cookie: str = "", accept: str = ""):
    headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"),
               (b"cookie", f"sessionid={key}{cookie}".encode())]
    if accept:
        headers.append((b"accept-language", accept.encode()))
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    await receive(socket, "snapshot")
    return socket


def bid(version: int, quantity: int, face: int) -> dict:
    return {"type": "action", "version": version,
            "action": {"type": "bid", "quantity": quantity, "face": face}}


@pytest.fixture
def liars_room(transactional_db):
    from django.core.cache import cache

    cache.clear()
    host_key = guest_session("Tanvir")
    room = services.room_create(
        actor=services.Actor(host_key, "Tanvir"), game="liars_dice", seats=2
    )
    yield room, host_key
    cache.clear()


@pytest.mark.django_db(transaction=True)
async def test_each_socket_reads_errors_in_its_own_language_with_the_same_code(liars_room):
    room, host_key = liars_room
    # Bengali by the language cookie; English by the browser's first language.
    bn = await socket_in(room.code, host_key, cookie="; django_language=bn")
    en = await socket_in(room.code, await aguest("Rumi"), accept="en-US,en;q=0.9")
    await en.send_json_to({"type": "join"})
    await receive(bn, "update", where=lambda m: m["events"])
    await bn.send_json_to({"type": "start"})
    started = await receive(en, "update", where=lambda m: m["room"]["status"] == "playing")
    await receive(bn, "update", where=lambda m: m["room"]["status"] == "playing")
    version = started["version"]
    got: dict[str, dict[str, dict]] = {"bn": {}, "en": {}}

    async def error(socket, frame) -> dict:
        await socket.send_json_to(frame)
        return await receive(socket, "error")

    # not_your_turn: seat 0 (Bengali) bids first, so English is refused now ...
    got["en"]["not_your_turn"] = await error(en, bid(version, 1, 2))
    # illegal_action, with a number in it: 2 cups of 5 dice.
    got["bn"]["illegal_action"] = await error(bn, bid(version, 11, 2))
    # stale_version (each then gets a fresh snapshot).
    for lang, socket in (("bn", bn), ("en", en)):
        got[lang]["stale_version"] = await error(socket, bid(version - 1, 1, 2))
        await receive(socket, "snapshot")
    await bn.send_json_to(bid(version, 1, 2))
    moved = await receive(bn, "update", where=lambda m: m["version"] > version)
    # ... and Bengali once it has bid, when English may (but not 11 dice).
    got["bn"]["not_your_turn"] = await error(bn, bid(moved["version"], 2, 2))
    await receive(en, "update", where=lambda m: m["version"] == moved["version"])
    got["en"]["illegal_action"] = await error(en, bid(moved["version"], 11, 2))
    for lang, socket in (("bn", bn), ("en", en)):
        got[lang]["bad_message"] = await error(socket, {"type": "hurry"})
    # rate_limited: the 21st message of a 2 s window (unknown types: no database).
    for lang, socket in (("bn", bn), ("en", en)):
        for n in range(30):
            await socket.send_json_to({"type": "hurry", "id": f"m{n}"})
        while True:
            reply = await receive(socket, "error")
            if reply["code"] == "rate_limited":
                got[lang]["rate_limited"] = reply
                break
    # too_large closes the socket: last.
    for lang, socket in (("bn", bn), ("en", en)):
        await socket.send_to(text_data=json.dumps({"type": "ping", "pad": "x" * 5000}))
        got[lang]["too_large"] = await receive(socket, "error", where=lambda m: m["code"] ==
                                               "too_large")
        await socket.disconnect()

    codes = ["not_your_turn", "stale_version", "illegal_action", "bad_message", "too_large",
             "rate_limited"]
    for code in codes:
        bengali, english = got["bn"][code], got["en"][code]
        assert bengali["code"] == english["code"] == code, (bengali, english)
        assert BENGALI_LETTER.search(bengali["message"]), bengali
        assert not ASCII_DIGIT.search(bengali["message"]), bengali
        assert not BENGALI_LETTER.search(english["message"]), english
    assert got["en"]["illegal_action"]["message"] == "There are only 10 dice in play"
    assert got["bn"]["illegal_action"]["message"] == "খেলায় আছে মাত্র ১০টি ডাইস"
    assert got["en"]["not_your_turn"]["message"] == "It is not your turn: Tanvir plays now"
    assert got["bn"]["not_your_turn"]["message"] == "এখন আপনার পালা নয়: এখন খেলবেন Rumi"
    assert got["en"]["stale_version"]["message"] == (
        "The table has moved on; here is the current state")
    assert got["en"]["bad_message"]["message"] == "Unknown message type 'hurry'"
    assert got["en"]["too_large"]["message"] == "Message too large"
    assert got["en"]["rate_limited"]["message"] == "Too many messages; slow down"


def test_a_placeholder_is_filled_after_translation_with_bengali_digits():
    from django.utils import translation

    exc = errors.BadMessage("A note has at most {count} characters", count=500)
    assert exc.message == "A note has at most 500 characters"
    with translation.override("bn"):
        assert exc.localised() == "নোটে সর্বোচ্চ ৫০০টি অক্ষর থাকতে পারে"
    with translation.override("en"):
        assert exc.localised() == "A note has at most 500 characters"


# ---- the catalogue ------------------------------------------------------------------


def _keywords() -> dict[str, int]:
    """Callable name -> which argument is the sentence (xgettext's keywords)."""
    from rooms.management.commands.makemessages import message_keywords

    found = {}
    for spec in message_keywords():
        name, _, position = spec.partition(":")
        found[name] = int(position or 1)
    return found


def _server_sentences() -> tuple[list[str], list[str]]:
    """(every sentence given to an error class or marker in rooms/ and games/,
    every place that builds one with an f-string or concatenation instead)."""
    keywords = _keywords()
    sentences, built = [], []
    files = sorted((REPO / "rooms").rglob("*.py")) + sorted((REPO / "games").rglob("*.py"))
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in keywords or len(node.args) < keywords[name]:
                continue
            argument = node.args[keywords[name] - 1]
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            strings = [argument] if not isinstance(argument, ast.BoolOp) else argument.values
            for value in strings:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    sentences.append(value.value)
                elif isinstance(value, ast.JoinedStr | ast.BinOp):
                    built.append(where)
    return sentences, built


def _bengali_catalogue() -> dict[str, str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "compile_messages", REPO / "scripts" / "compile_messages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.read_po(REPO / "locale" / "bn" / "LC_MESSAGES" / "django.po")


def test_every_server_error_message_is_a_plain_catalogue_string():
    sentences, built = _server_sentences()
    assert len(sentences) > 100  # the scan finds the error sites
    assert not built, f"error messages built at run time (use {{placeholders}}): {built}"


def test_every_server_error_message_has_a_bengali_translation():
    sentences, _ = _server_sentences()
    catalogue = _bengali_catalogue()
    missing = sorted({s for s in sentences if not catalogue.get(s)})
    assert not missing, f"no Bengali translation in locale/bn django.po: {missing}"
    for sentence in set(sentences):
        wanted = set(re.findall(r"\{\w+\}", sentence))
        assert set(re.findall(r"\{\w+\}", catalogue[sentence])) == wanted, sentence


def test_the_bengali_catalogue_says_dice_one_way():
    for po in (REPO / "locale" / "bn" / "LC_MESSAGES").glob("*.po"):
        assert "ছক্কা" not in po.read_text(encoding="utf-8"), po  # the glossary's ডাইস
