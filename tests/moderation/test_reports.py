"""Players report a room; reports wait in the admin queue with links to act."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rooms.models import ModerationLog, Report
from tests.history.factories import lobby_room, record_for, stored_game

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


def test_a_player_reports_a_room_with_a_reason_seat_and_note(client):
    room, _, _ = lobby_room()
    response = client.post(f"/r/{room.code.lower()}/report/",
                           {"reason": "abusive_name", "seat": "1", "note": "rude name"}, **JSON)
    assert response.status_code == 200 and response.json()["type"] == "ok"
    report = Report.objects.get()
    assert (report.room, report.reason, report.seat, report.note) == (room, "abusive_name", 1,
                                                                      "rude name")
    assert report.session_key == client.session.session_key and not report.resolved


def test_a_form_post_redirects_back_to_the_room(client):
    room, _, _ = lobby_room()
    response = client.post(reverse("room_report", args=[room.code]), {"reason": "spam"})
    assert response.status_code == 302 and response["Location"] == f"/r/{room.code}/"


@pytest.mark.parametrize("data", [{"reason": "boring"}, {},
                                  {"reason": "other", "note": "x" * 301},
                                  {"reason": "spam", "seat": "9"}])
def test_bad_reports_are_refused(client, data):
    room, _, _ = lobby_room()
    response = client.post(reverse("room_report", args=[room.code]), data, **JSON)
    assert response.status_code == 400 and response.json()["code"] == "bad_message"
    assert not Report.objects.exists()


def test_an_unknown_room_is_404(client):
    response = client.post(reverse("room_report", args=["ZZZZ"]), {"reason": "spam"}, **JSON)
    assert response.status_code == 404


def test_reports_are_rate_limited_per_session(client):
    room, _, _ = lobby_room()
    codes = [client.post(reverse("room_report", args=[room.code]), {"reason": "spam"},
                         **JSON).status_code for _ in range(7)]
    assert codes == [200] * 5 + [429, 429]
    assert Report.objects.count() == 5


def test_reports_need_the_csrf_token(client):
    from django.test import Client

    room, _, _ = lobby_room()
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(reverse("room_report", args=[room.code]),
                       {"reason": "spam"}).status_code == 403


def test_the_report_queue_filters_open_reports_links_the_room_and_replay(admin_client,
                                                                          moderator):
    game_row = stored_game(record_for("ludo"), humans={0: "s" * 32})
    client_report = Report.objects.create(room=game_row.room, game=game_row, reason="cheating")
    Report.objects.create(room=game_row.room, reason="spam", resolved=True)
    url = reverse("admin:rooms_report_changelist")
    page = admin_client.get(url, {"state": "open"})
    assert list(page.context["cl"].result_list) == [client_report]
    html = page.content.decode()
    assert reverse("admin:rooms_room_change", args=[game_row.room_id]) in html
    assert reverse("game_page", args=[game_row.id]) in html
    admin_client.post(url, {"action": "resolve_reports", "_selected_action": [client_report.id],
                            "apply": "1", "reason": "warned the player"})
    client_report.refresh_from_db()
    assert client_report.resolved and client_report.resolved_by == moderator
    assert ModerationLog.objects.get().action == "resolve"


def test_the_report_include_posts_the_documented_fields(rf):
    from django.template.loader import render_to_string

    request = rf.get("/r/KHMT/")
    html = render_to_string("rooms/_report.html", request=request, context={
        "code": "KHMT", "seats": [{"seat": 0, "name": "Tanvir", "kind": "human"},
                                  {"seat": 1, "name": None, "kind": "open"}]})
    assert 'action="/r/KHMT/report/"' in html
    for field in ('name="reason" value="abusive_name"', 'value="cheating"', 'value="spam"',
                  'value="other"', 'name="note" maxlength="300"', 'name="seat"',
                  'name="csrfmiddlewaretoken"'):
        assert field in html, field
