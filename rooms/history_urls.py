"""Routes for finished games' replay frames and luck, and the public verifier."""

from django.urls import path

from rooms import history_views

urlpatterns = [
    path("games/<int:game_id>/replay.json", history_views.replay_json, name="game_replay"),
    path("games/<int:game_id>/luck.json", history_views.luck_json, name="game_luck"),
    path("verify/", history_views.verify, name="verify"),
]
