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

from apps.tasks import api  # noqa: E402

urlpatterns += [
    path("api/v1/tasks/", api.TaskListView.as_view(), name="api-tasks"),
    path("api/v1/tasks/boards", api.BoardListView.as_view(), name="api-boards"),
    path("api/v1/tasks/statuses", api.StatusListView.as_view(), name="api-statuses"),
    path("api/v1/tasks/snapshot", api.SnapshotView.as_view(), name="api-snapshot"),
    path("api/v1/tasks/<int:task_id>", api.TaskDetailView.as_view(), name="api-task"),
    path("api/v1/tasks/<int:task_id>/move", api.TaskMoveView.as_view(), name="api-task-move"),
    path("api/v1/tasks/<int:task_id>/comments", api.CommentListView.as_view(), name="api-task-comments"),
]
