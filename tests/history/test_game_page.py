"""Every finished game has a page with players and places, a replay, a record
that the independent checker accepts, a fairness verdict and a luck report."""

from __future__ import annotations

import copy
import io
import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import translation

from games.record import RecordError, dice_of_record, replay
from rooms import history, history_views, services
from rooms.models import Game, Room
from tests.history.factories import record_for, stored_game

pytestmark = pytest.mark.django_db
GAMES = ["liars_dice", "ludo", "snakes"]


def tamper_one_die(record: dict) -> tuple[dict, int]:
    """The record with one die changed; returns it and the event's index."""
    bad = copy.deepcopy(record)
    index, _dice = dice_of_record(bad)[3]
    event = bad["events"][index]
    if event["type"] == "round":
        seat = sorted(event["dice"], key=int)[0]
        event["dice"][seat][0] = event["dice"][seat][0] % 6 + 1
    else:
        event["value"] = event["value"] % 6 + 1
    return bad, index


@pytest.mark.parametrize("game", GAMES)
def test_the_game_page_shows_players_places_duration_and_a_passing_check(client, game):
    record = record_for(game)
    game_row = stored_game(record, humans={0: "k" * 32}, names={0: "রুমি"})
    page = client.get(reverse("game_page", args=[game_row.id]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "রুমি" in html
    summary = page.context["summary"]
    assert [p["seat"] for p in summary["players"]] == record["placings"]
    assert summary["duration_minutes"] == 12
    assert page.context["verdict"]["ok"] is True
    assert page.context["verdict"]["dice_checked"] == sum(len(d) for _, d in
                                                          dice_of_record(record))
    assert 'data-ok="true"' in html
    assert reverse("game_record", args=[game_row.id]) in html
    assert reverse("game_replay", args=[game_row.id]) in html
    # The luck report travels as JSON, drawn by static/js/luck.js (the one chart
    # drawer, shared with the room's results screen).
    assert '<script id="luck-report" type="application/json">' in html
    assert page.context["luck"]["seats"][0]["faces"] is not None
    assert 'class="luck-chart"' not in html


@pytest.mark.parametrize("game", GAMES)
def test_the_downloaded_record_is_accepted_by_the_independent_checker(client, game):
    game_row = stored_game(record_for(game))
    response = client.get(reverse("game_record", args=[game_row.id]))
    assert response["Content-Disposition"].startswith("attachment")
    record = json.loads(response.content)
    result = replay(record)
    assert result.placings == record["placings"] and result.dice_checked > 0


@pytest.mark.parametrize("game", GAMES)
def test_a_changed_die_fails_the_check_and_the_verdict_names_its_event(game):
    bad, index = tamper_one_die(record_for(game))
    with pytest.raises(RecordError) as failure:
        replay(bad)  # the independent checker refuses it (maybe at the next move)
    assert failure.value.event_index is not None and failure.value.event_index >= index
    with translation.override("en"):
        verdict = history.verify(bad)
    assert verdict["ok"] is False and verdict["event_index"] == index
    assert "seeds give" in verdict["message"]
    with translation.override("bn"):  # the reader's language, numbers in its digits
        bengali = history.verify(bad)["message"]
    assert "সিড অনুযায়ী" in bengali and not re.search("[0-9]", bengali)


@pytest.mark.parametrize("game", GAMES)
def test_the_verify_page_accepts_a_good_record_and_names_the_bad_event(client, game):
    record = record_for(game)
    page = client.post(reverse("verify"), {"record": json.dumps(record)})
    assert page.status_code == 200 and page.context["verdict"]["ok"] is True
    bad, _ = tamper_one_die(record)
    expected = history.verify(bad)["event_index"]
    upload = io.BytesIO(json.dumps(bad).encode())
    upload.name = "record.json"
    page = client.post(reverse("verify"), {"file": upload})
    verdict = page.context["verdict"]
    assert verdict["ok"] is False and verdict["event_index"] == expected
    assert f'data-event-index="{expected}"' in page.content.decode()
    as_json = client.post(reverse("verify"), {"record": json.dumps(bad)},
                          HTTP_ACCEPT="application/json").json()
    assert as_json["ok"] is False and as_json["event_index"] == expected


def test_the_verify_page_explains_junk(client):
    assert client.get(reverse("verify")).status_code == 200
    page = client.post(reverse("verify"), {"record": "{not json"})
    assert page.context["verdict"]["ok"] is False
    page = client.post(reverse("verify"), {"record": '{"format": "chess"}'},
                       HTTP_ACCEPT_LANGUAGE="en")
    assert "Unknown format" in page.context["verdict"]["message"]
    page = client.post(reverse("verify"), {"record": '{"format": "chess"}'})
    assert "অজানা ফরম্যাট" in page.context["verdict"]["message"]


def test_a_seed_that_does_not_match_its_hash_fails():
    record = record_for("snakes")
    record["fairness"]["server_seed"] = "00" * 32
    with translation.override("en"):
        verdict = history.verify(record)
    assert verdict["ok"] is False and "hash" in verdict["message"]


@pytest.mark.parametrize("game", GAMES)
def test_the_replay_has_a_frame_per_action_ending_in_the_final_view(client, game):
    record = record_for(game)
    game_row = stored_game(record)
    data = client.get(reverse("game_replay", args=[game_row.id])).json()
    frames = data["frames"]
    assert frames[0]["event"] is None
    view = {}
    for frame in frames:
        view.update(frame["view"])
    final = replay(record)
    assert view == final.game.view_for(final.state, None)
    shown = [e for f in frames for e in f["events"]]
    assert shown == record["events"]


def test_in_progress_games_have_no_page_replay_or_luck(client, settings):
    settings.KHELAGHOR_BOT_DELAY = 1000
    from tests.history.factories import playing_room

    room, _, _ = playing_room()
    game_row = services.current_game(room)
    for name in ("game_page", "game_replay", "game_luck", "game_record"):
        assert client.get(reverse(name, args=[game_row.id])).status_code == 404, name


def test_luck_counts_rolls_sixes_and_averages_for_rolling_games():
    record = record_for("snakes")
    record["events"] = [{"type": "roll", "seat": 0, "value": v} for v in (6, 6, 1, 3)] + [
        {"type": "roll", "seat": 1, "value": 2}]
    luck = history.luck_report(record)
    first, second = luck["seats"][0], luck["seats"][1]
    assert (first["dice"], first["sixes"], first["expected_sixes"], first["average"]) == (
        4, 2, 0.7, 4.0)
    assert first["faces"] == [1, 0, 1, 0, 0, 2]
    assert (second["dice"], second["average"]) == (1, 2.0)
    assert luck["seats"][2]["dice"] == 0 and luck["seats"][2]["average"] is None
    assert "chart" not in first  # drawn in the browser from "faces"


def test_luck_counts_the_dice_held_in_liars_dice():
    record = record_for("liars_dice")
    luck = history.luck_report(record)
    assert luck["kind"] == "held"
    for seat in luck["seats"]:
        held = sum(len(e["dice"].get(str(seat["seat"]), [])) for e in record["events"]
                   if e["type"] == "round")
        assert seat["dice"] == held and sum(seat["faces"]) == held


def test_luck_json_for_the_results_screen(client):
    game_row = stored_game(record_for("ludo"))
    data = client.get(reverse("game_luck", args=[game_row.id])).json()
    assert data["kind"] == "rolled" and len(data["seats"]) == 2
    assert set(data["seats"][0]) >= {"seat", "name", "dice", "sixes", "expected_sixes",
                                     "average", "faces"}


def test_closing_idle_rooms_keeps_their_games_and_frees_the_code(settings):
    from datetime import timedelta

    from rooms import clock
    from tests.history.factories import person

    game_row = stored_game(record_for("snakes"))
    room = game_row.room
    Room.objects.filter(id=room.id).update(last_activity=clock.now() - timedelta(hours=3))
    assert services.rooms_expire() >= 1
    room.refresh_from_db()
    assert room.status == Room.Status.CLOSED
    assert Game.objects.filter(id=game_row.id).exists()
    assert game_row.moves.count() == len(record_for("snakes")["events"])
    # The code can be used by a new room while the old game keeps its page.
    fresh = Room.objects.create(code=room.code, game="snakes", next_server_seed="0",
                                next_server_seed_hash="0")
    assert fresh.code == room.code
    assert replay(services.game_record(game_row)).dice_checked
    del person


def test_a_room_cannot_be_deleted_through_the_admin(admin_client):
    game_row = stored_game(record_for("snakes"))
    response = admin_client.post(reverse("admin:rooms_room_delete", args=[game_row.room_id]))
    assert response.status_code in (403, 302)
    assert Room.objects.filter(id=game_row.room_id).exists()


def test_the_game_page_and_verifier_speak_bengali_first(client):
    game_row = stored_game(record_for("snakes"))
    html = client.get(reverse("game_page", args=[game_row.id])).content.decode()
    for text in ("রিপ্লে", "ধাপ %(n)s / %(total)s", "ভাগ্যের হিসাব", "আমার ব্রাউজারে যাচাই করুন",
                 "ঘটনা %(event)s-এ ব্যর্থ", "ডাইস ন্যায্য"):
        assert text in html, text
    for name in ("replay-strings", "verify-strings"):
        start = html.index(f'id="{name}">') + len(name) + 6
        json.loads(html[start:html.index("</script>", start)])
    verify = client.get(reverse("verify")).content.decode()
    assert "সার্ভারে যাচাই করুন" in verify
    # The browser's verdict says what it checked: a drill's doctored record got
    # "fails" from the server and "the dice are fair" from the browser at once.
    assert "এটি শুধু ডাইস যাচাই করে" in verify


def test_a_broken_record_is_explained_in_the_page_s_language_and_digits(client, settings):
    """An exploring drill deleted one quote from a downloaded record: the page
    said "JSON নয়: Expecting property name enclosed in double quotes: line 51
    column 2 (char 906)"; a huge file's refusal was never translated; a record
    whose placings were changed showed "[0, 1], [1, 1]"."""
    text = json.dumps(record_for("snakes"), indent=1)
    broken = text.replace('"game"', 'game', 1)
    bengali = client.post(reverse("verify"), {"record": broken}).context["verdict"]["message"]
    assert "বৈধ JSON নয়" in bengali and "লাইনের" in bengali
    assert not re.search("[0-9A-Za-z]{3,}", bengali.replace("JSON", ""))
    english = client.post(reverse("verify"), {"record": broken},
                          HTTP_ACCEPT_LANGUAGE="en").context["verdict"]["message"]
    assert "not valid JSON" in english and re.search(r"line \d+, column \d+", english)

    huge = io.BytesIO(b" " * (history_views.MAX_RECORD_BYTES + 1))
    huge.name = "huge.json"
    refused = client.post(reverse("verify"), {"file": huge}).context["verdict"]["message"]
    assert refused == "ফাইলটি খেলার রেকর্ড হওয়ার পক্ষে অনেক বড়"

    record = record_for("snakes")
    record["placings"] = list(reversed(record["placings"]))
    with translation.override("bn"):
        placings = history.verify(record)["message"]
    assert "[" not in placings and not re.search("[0-9]", placings)


def test_game_pages_and_records_answer_head_as_link_checkers_ask(client):
    """Link previews and checkers ask with HEAD; these pages answered 405."""
    game_row = stored_game(record_for("snakes"))
    for url in (reverse("game_page", args=[game_row.id]),
                reverse("game_record", args=[game_row.id])):
        assert client.head(url).status_code == 200, url
    assert client.post(reverse("game_record", args=[game_row.id])).status_code == 405


def test_a_game_shorter_than_a_minute_says_so_not_zero_minutes(client):
    game_row = stored_game(record_for("snakes"))
    Game.objects.filter(id=game_row.id).update(
        finished_at=game_row.started_at + timedelta(seconds=20))
    page = client.get(reverse("game_page", args=[game_row.id])).content.decode()
    assert "এক মিনিটেরও কম সময়ে খেলা হয়েছে" in page and "০ মিনিটে" not in page
