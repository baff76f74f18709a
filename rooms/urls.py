"""HTTP routes of the rooms app: creating, joining and showing rooms."""

from django.urls import path

from rooms import views

urlpatterns = [
    path("nickname/", views.nickname, name="nickname"),
    path("rooms/new/", views.room_new, name="room_new"),
    path("play/<str:game>/", views.play_now, name="play_now"),
    path("join/", views.join_by_code, name="join"),
    path("r/<str:code>/", views.room_page, name="room"),
    path("api/rooms/<str:code>/", views.room_api, name="room_api"),
    path("games/ludo/geometry/<str:board>.json", views.ludo_geometry, name="ludo_geometry"),
    path("games/<int:game_id>/", views.game_page, name="game_page"),
    path("games/<int:game_id>/record.json", views.game_record, name="game_record"),
]
