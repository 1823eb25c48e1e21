from django.urls import path

from apps.tasks import share_views, views

app_name = "tasks"

urlpatterns = [
    path("aufgaben/", views.board_page, name="board"),
    path("aufgaben/liste/", views.list_page, name="list"),
    path("aufgaben/<int:task_id>/", views.detail_page, name="detail"),
]

urlpatterns += [
    path("aufgaben/neu/", views.quick_add, name="quick-add"),
    path("aufgaben/boards/neu/", views.create_board, name="create-board"),
    path("aufgaben/boards/<int:board_id>/teilen/", share_views.share_board, name="share-board"),
    path("aufgaben/<int:task_id>/karte/", views.card_partial, name="card"),
    path("aufgaben/<int:task_id>/json/", views.record_json, name="record"),
    path("aufgaben/<int:task_id>/verschieben/", views.move, name="move"),
    path("aufgaben/<int:task_id>/kommentar/", views.comment, name="comment"),
    path("aufgaben/<int:task_id>/loeschen/", views.delete, name="delete"),
]
