"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `tasks:api-…` names are unchanged."""

from django.urls import path

from apps.tasks import api

urlpatterns = [
    path("tasks/", api.TaskListView.as_view(), name="api-tasks"),
    path("tasks/boards", api.BoardListView.as_view(), name="api-boards"),
    path("tasks/statuses", api.StatusListView.as_view(), name="api-statuses"),
    path("tasks/snapshot", api.SnapshotView.as_view(), name="api-snapshot"),
    path("tasks/<int:task_id>", api.TaskDetailView.as_view(), name="api-task"),
    path("tasks/<int:task_id>/move", api.TaskMoveView.as_view(), name="api-task-move"),
    path("tasks/<int:task_id>/comments", api.CommentListView.as_view(), name="api-task-comments"),
]
