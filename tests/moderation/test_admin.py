"""A moderator finds a room, watches it, and acts on it through the Django admin;
every action asks for a reason and lands in the moderation log."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse

from accounts_optional.usernames import player_username
from rooms import errors, services
from rooms.models import Ban, Game, ModerationLog, MoveLog, Room, Seat
from tests.history.factories import lobby_room, person, playing_room, record_for, stored_game

pytestmark = pytest.mark.django_db


def moderate(client, room, act, seat=None, reason="abusive behaviour"):
    args = [room.id, act] if seat is None else [room.id, act, seat]
    name = "admin:rooms_room_moderate_room" if seat is None else "admin:rooms_room_moderate"
    return client.post(reverse(name, args=args), {"reason": reason})


def test_a_moderator_finds_a_room_by_code_in_any_case_and_by_nickname(admin_client):
    room, _, _ = lobby_room()
    lobby_room()  # another room that must not match
    url = reverse("admin:rooms_room_changelist")
    by_code = admin_client.get(url, {"q": room.code.lower()})
    assert by_code.status_code == 200
    assert list(by_code.context["cl"].result_list) == [room]
    by_name = admin_client.get(url, {"q": "রুমি"})
    assert room in list(by_name.context["cl"].result_list)


def test_the_room_page_lists_seats_with_moderator_links_and_the_replay(admin_client):
    game_row = stored_game(record_for("snakes"), humans={0: "k" * 32})
    page = admin_client.get(reverse("admin:rooms_room_change", args=[game_row.room_id]))
    html = page.content.decode()
    assert page.status_code == 200
    assert reverse("game_page", args=[game_row.id]) in html
    assert reverse("admin:rooms_room_moderate", args=[game_row.room_id, "remove", 0]) in html
    assert reverse("admin:rooms_room_moderate_room", args=[game_row.room_id, "close"]) in html


def test_filters_for_game_status_visibility_and_age_work(admin_client):
    room, _, _ = lobby_room("ludo")
    url = reverse("admin:rooms_room_changelist")
    for query in ({"game": "ludo"}, {"status__exact": "lobby"}, {"visibility__exact": "private"},
                  {"age": "hour"}):
        response = admin_client.get(url, query)
        assert response.status_code == 200
        assert room in list(response.context["cl"].result_list), query
    assert room not in list(admin_client.get(url, {"age": "older"}).context["cl"].result_list)


def test_closing_through_the_changelist_asks_for_a_reason_then_aborts_the_game(
    admin_client, moderator
):
    room, _, _ = playing_room()
    url = reverse("admin:rooms_room_changelist")
    ask = admin_client.post(url, {"action": "close_rooms", "_selected_action": [room.id]})
    assert ask.status_code == 200 and b'name="reason"' in ask.content
    room.refresh_from_db()
    assert room.status == Room.Status.PLAYING  # nothing happens without a reason
    done = admin_client.post(url, {"action": "close_rooms", "_selected_action": [room.id],
                                   "apply": "1", "reason": "Spam names"})
    assert done.status_code == 302
    room.refresh_from_db()
    assert room.status == Room.Status.CLOSED and room.closed_reason == "Spam names"
    game_row = room.games.get()
    assert game_row.status == Game.Status.ABORTED
    assert game_row.moves.order_by("-seq").first().event == {"type": "aborted",
                                                             "reason": "Spam names"}
    log = ModerationLog.objects.get()
    assert (log.moderator, log.action, log.room, log.reason) == (
        moderator, "close", room, "Spam names")


def test_an_empty_reason_is_refused_and_changes_nothing(admin_client):
    room, _, _ = playing_room()
    response = moderate(admin_client, room, "close", reason="   ")
    assert response.status_code == 200  # the form again, with its error
    room.refresh_from_db()
    assert room.status == Room.Status.PLAYING and not ModerationLog.objects.exists()


def test_removing_a_player_mid_game_gives_the_seat_to_a_computer(admin_client):
    room, _, guest = playing_room()
    assert moderate(admin_client, room, "remove", 1).status_code == 302
    seat = room.seats.get(index=1)
    assert (seat.kind, seat.bot_kind, seat.session_key, seat.user_id) == ("bot", "standard", "",
                                                                         None)
    events = [m.event for m in MoveLog.objects.filter(game__room=room)]
    assert {"type": "removed", "seat": 1, "reason": "moderator"} in events
    assert ModerationLog.objects.get().action == "remove"
    # The removed guest can no longer act for the seat.
    with pytest.raises(errors.RoomError):
        room.refresh_from_db()
        services.game_action(room.code, guest, room.version, {"type": "roll"})


def test_a_removed_player_s_game_still_finishes_and_replays(admin_client, settings):
    from games.record import replay
    from tests.history.factories import play_out

    room, host, _ = playing_room()
    moderate(admin_client, room, "remove", 1)
    game_row = play_out(room, [host])
    assert game_row.status == Game.Status.FINISHED
    assert replay(services.game_record(game_row)).dice_checked > 0


def test_removing_a_player_in_the_lobby_opens_the_seat(admin_client):
    room, _, _ = lobby_room()
    moderate(admin_client, room, "remove", 1)
    seat = room.seats.get(index=1)
    assert seat.kind == Seat.Kind.OPEN and seat.name == "" and seat.session_key == ""


def test_renaming_gives_a_neutral_name_at_the_table_in_the_record_and_the_session(
    admin_client
):
    room, _, guest = playing_room()
    store = SessionStore()
    store["nickname"] = "Badname"
    store.create()
    room.seats.filter(index=1).update(session_key=store.session_key)
    moderate(admin_client, room, "rename", 1)
    seat = room.seats.get(index=1)
    assert seat.name == "খেলোয়াড় ২"
    assert services.current_game(room).seats[1]["name"] == "খেলোয়াড় ২"
    assert "nickname" not in SessionStore(session_key=store.session_key).load()
    assert ModerationLog.objects.get().action == "rename"


def test_banning_a_seat_bans_the_session_and_removes_the_player(admin_client):
    room, _, guest = playing_room()
    moderate(admin_client, room, "ban", 1, reason="Cheating with a friend")
    ban = Ban.objects.get()
    assert ban.session_key == guest.session_key and ban.active
    assert room.seats.get(index=1).kind == Seat.Kind.BOT
    assert sorted(ModerationLog.objects.values_list("action", flat=True)) == ["ban", "remove"]
    with pytest.raises(errors.Banned):
        services.room_create(actor=guest, game="snakes", seats=2)
    other, _, _ = lobby_room()
    with pytest.raises(errors.Banned):
        services.seat_join(other.code, guest)


def test_seat_admin_actions_rename_and_remove_with_a_reason(admin_client):
    room, _, _ = playing_room()
    seat = room.seats.get(index=1)
    url = reverse("admin:rooms_seat_changelist")
    admin_client.post(url, {"action": "rename_players", "_selected_action": [seat.id],
                            "apply": "1", "reason": "rude"})
    assert room.seats.get(index=1).name == "খেলোয়াড় ২"
    admin_client.post(url, {"action": "remove_players", "_selected_action": [seat.id],
                            "apply": "1", "reason": "rude"})
    assert room.seats.get(index=1).kind == Seat.Kind.BOT
    assert list(ModerationLog.objects.order_by("created_at", "id")
                .values_list("action", flat=True)) == ["rename", "remove"]


def test_a_ban_added_in_the_admin_is_logged_and_can_be_lifted_with_a_reason(admin_client):
    guest = person("x")
    admin_client.post(reverse("admin:rooms_ban_add"),
                      {"session_key": guest.session_key, "reason": "spam"})
    ban = Ban.objects.get()
    assert Ban.is_banned(session_key=guest.session_key, user_id=None)
    admin_client.post(reverse("admin:rooms_ban_changelist"),
                      {"action": "lift_bans", "_selected_action": [ban.id], "apply": "1",
                       "reason": "appeal accepted"})
    assert not Ban.is_banned(session_key=guest.session_key, user_id=None)
    assert list(ModerationLog.objects.order_by("id").values_list("action", flat=True)) == [
        "ban", "unban"]


def test_the_move_log_is_read_only_and_shows_pretty_json(admin_client):
    game_row = stored_game(record_for("snakes"))
    move = game_row.moves.first()
    assert admin_client.get(reverse("admin:rooms_movelog_add")).status_code == 403
    page = admin_client.get(reverse("admin:rooms_movelog_change", args=[move.id]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "<pre>" in html and "&quot;type&quot;: &quot;roll&quot;,\n" in html
    assert 'name="_save"' not in html
    assert admin_client.post(reverse("admin:rooms_movelog_delete", args=[move.id])).status_code \
        in (403, 302)
    assert MoveLog.objects.filter(id=move.id).exists()
    listing = admin_client.get(reverse("admin:rooms_movelog_changelist"),
                               {"game__id__exact": game_row.id, "event_type": "roll"})
    assert listing.status_code == 200
    assert all(m.event["type"] == "roll" for m in listing.context["cl"].result_list)


def test_moderation_log_cannot_be_edited(admin_client):
    assert admin_client.get(reverse("admin:rooms_moderationlog_add")).status_code == 403


def test_players_and_anonymous_visitors_cannot_moderate(client, django_user_model):
    room, _, _ = lobby_room()
    response = moderate(client, room, "close")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    user = django_user_model.objects.create_user("player", password="pw-for-tests-1")
    client.force_login(user)
    assert moderate(client, room, "close").status_code == 302
    room.refresh_from_db()
    assert room.status != Room.Status.CLOSED
    assert client.get(reverse("staff_dashboard")).status_code == 302


def test_the_dashboard_counts_rooms_games_players_and_today_s_timeouts(admin_client):
    room, _, _ = playing_room()
    lobby_room()
    room.seats.filter(index=0).update(connections=2)
    game_row = services.current_game(room)
    for kind in ("timeout", "timeout", "takeover"):
        services.log_table_event(game_row, {"type": kind, "seat": 0})
    stored_game(record_for("snakes"))
    page = admin_client.get(reverse("staff_dashboard"))
    assert page.status_code == 200
    stats = page.context["stats"]
    assert stats["rooms_open"] == 3  # two live rooms and the finished one
    assert stats["games_in_play"] == 1
    assert stats["players_connected"] == 1
    assert stats["games_finished_today"] == 1
    assert (stats["timeouts_today"], stats["takeovers_today"]) == (2, 1)
    html = page.content.decode()
    assert room.code in html
    # The admin's own header and the games by name, in the page's language.
    assert page.context["site_header"] == "খেলাঘর মডারেশন"
    assert "সাপ-লুডু" in html and "snakes" not in html


def test_admin_index_and_game_and_seat_lists_render(admin_client):
    stored_game(record_for("liars_dice"), humans={0: "a" * 32})
    for name in ("admin:index", "admin:rooms_game_changelist", "admin:rooms_seat_changelist",
                 "admin:rooms_report_changelist", "admin:rooms_moderationlog_changelist",
                 "admin:rooms_ban_changelist", "admin:rooms_room_changelist"):
        assert admin_client.get(reverse(name)).status_code == 200, name
    game_row = Game.objects.get()
    page = admin_client.get(reverse("admin:rooms_game_change", args=[game_row.id]))
    assert page.status_code == 200 and game_row.server_seed not in page.content.decode()


def test_the_admin_sign_in_is_rate_limited_like_the_sites(client, moderator):
    from accounts_optional.forms import MAX_FAILURES

    for _ in range(MAX_FAILURES):
        refused = client.post("/admin/login/", {"username": "mod", "password": "wrong"})
        assert refused.status_code == 200 and not refused.wsgi_request.user.is_authenticated
    # Even the right password waits now.
    blocked = client.post("/admin/login/?next=/admin/",
                          {"username": "mod", "password": "pw-for-tests-1"})
    assert blocked.status_code == 200
    assert "15" in blocked.content.decode()
    assert not blocked.wsgi_request.user.is_authenticated


def test_a_moderator_adds_and_edits_players_with_bengali_usernames(admin_client,
                                                                   django_user_model):
    added = admin_client.post(reverse("admin:auth_user_add"), {
        "username": "রুমি", "password1": "a long passphrase 42", "password2":
        "a long passphrase 42", "usable_password": "true"})
    assert added.status_code == 302, added.context["adminform"].form.errors
    rumi = django_user_model.objects.get(username="রুমি")
    # Deactivating a player (a cheater, say) saves the change form, username and all.
    page = admin_client.get(reverse("admin:auth_user_change", args=[rumi.id]))
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items()
            if value is not None and name not in ("groups", "user_permissions", "password")}
    data.pop("is_active")  # unticked
    data.update({"username": "রুমি", "date_joined_0": "2026-12-07",
                 "date_joined_1": "10:00:00", "last_login_0": "", "last_login_1": ""})
    changed = admin_client.post(reverse("admin:auth_user_change", args=[rumi.id]), data)
    assert changed.status_code == 302, changed.context["adminform"].form.errors
    rumi.refresh_from_db()
    assert not rumi.is_active
    # A name with a space is still refused, with the site's own words.
    refused = admin_client.post(reverse("admin:auth_user_add"), {
        "username": "রুমি আক্তার", "password1": "a long passphrase 42",
        "password2": "a long passphrase 42", "usable_password": "true"})
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors["username"] == [player_username.message]
    assert not django_user_model.objects.filter(username="রুমি আক্তার").exists()


def test_a_player_removed_first_is_banned_from_the_log_of_the_removal(admin_client):
    room, _, guest = playing_room()
    moderate(admin_client, room, "remove", 1, reason="rude")
    # The seat no longer knows its player, so the room's ban says where to go.
    admin_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    refused = admin_client.post(
        reverse("admin:rooms_room_moderate", args=[room.id, "ban", 1]), {"reason": "rude"},
        follow=True)
    assert "moderation log" in refused.content.decode()
    assert not Ban.objects.exists()
    removal = ModerationLog.objects.get(action="remove")
    assert removal.session_key == guest.session_key
    url = reverse("admin:rooms_moderationlog_changelist")
    for _ in range(2):  # the second time: already banned, nothing more
        admin_client.post(url, {"action": "ban_players", "_selected_action": [removal.id],
                                "apply": "1", "reason": "rude, and again elsewhere"})
    ban = Ban.objects.get()
    assert ban.session_key == guest.session_key and ban.active
    with pytest.raises(errors.Banned):
        services.room_create(actor=guest, game="snakes", seats=2)
    close = ModerationLog.objects.create(action="close", room=room, reason="spam")
    admin_client.post(url, {"action": "ban_players", "_selected_action": [close.id],
                            "apply": "1", "reason": "nobody"})
    assert Ban.objects.count() == 1  # a log entry about no player bans nobody
