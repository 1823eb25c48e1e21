"""REST API of Aufgaben for mobile clients (`/api/v1/tasks/…`): thin typed adapters over the same
services, input and output models as the tools and pages (see `apps.core.surfaces.api.endpoint`)."""

from __future__ import annotations

import hashlib

from django.db.models import Count, Max, Sum
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from apps.core.contracts import Output
from apps.core.origin import Origin
from apps.core.surfaces.api import ApiView, endpoint, listed
from apps.tasks import contracts as c
from apps.tasks import services


class BoardListView(ApiView):
    @endpoint(output=c.BoardList, operation_id="tasks_boards_list")
    def get(self, request):
        """Boards you can see"""
        return {"boards": [c.BoardOut.of(b) for b in services.list_boards(request.principal)]}

    @endpoint(
        body=c.BoardCreateWithSharing, output=c.BoardResult, status=201, operation_id="tasks_boards_create"
    )
    def post(self, request, body: c.BoardCreateWithSharing):
        """Create a board"""
        return {"board": c.BoardOut.of(services.create_board(request.principal, body))}


class StatusListView(ApiView):
    @endpoint(output=c.StatusList, operation_id="tasks_statuses_list")
    def get(self, request):
        """Task statuses (columns) in order"""
        return {"statuses": [c.StatusOut.of(s) for s in services.list_statuses()]}


class TaskListView(ApiView):
    @endpoint(query=c.TaskFilter, output=c.TaskPage, operation_id="tasks_list")
    def get(self, request, query: c.TaskFilter):
        """List tasks (filters, pagination, total)"""
        found = services.list_tasks(request.principal, query)
        return listed("tasks", c.TaskOut.of, found, query)

    @endpoint(body=c.TaskCreate, output=c.TaskResult, status=201, operation_id="tasks_create")
    def post(self, request, body: c.TaskCreate):
        """Create a task"""
        task = services.create_task(request.principal, body, origin=Origin.of_request(request))
        return {"task": c.TaskOut.of(task)}


class TaskDetailView(ApiView):
    @endpoint(output=c.TaskWithComments, operation_id="tasks_retrieve")
    def get(self, request, task_id: int):
        """One task with its comments"""
        task = services.get_task(request.principal, task_id)
        return {
            "task": c.TaskOut.of(task),
            "comments": [c.CommentOut.of(x) for x in task.comments.all()],
        }

    @endpoint(body=c.TaskUpdate, output=c.TaskResult, operation_id="tasks_partial_update")
    def patch(self, request, task_id: int, body: c.TaskUpdate):
        """Change some fields (partial); optional expected_version"""
        task = services.update_task(request.principal, task_id, body)
        return {"task": c.TaskOut.of(task)}

    @endpoint(output=None, status=204, operation_id="tasks_destroy")
    def delete(self, request, task_id: int):
        """Delete a task"""
        services.delete_task(request.principal, task_id)


class TaskMoveView(ApiView):
    @endpoint(body=c.TaskMove, output=c.TaskResult, operation_id="tasks_move")
    def post(self, request, task_id: int, body: c.TaskMove):
        """Move to a column / board / position"""
        task = services.move_task(request.principal, task_id, body)
        return {"task": c.TaskOut.of(task)}


class CommentListView(ApiView):
    @endpoint(output=c.CommentList, operation_id="tasks_comments_list")
    def get(self, request, task_id: int):
        """Comments of a task"""
        return {"comments": [c.CommentOut.of(x) for x in services.list_comments(request.principal, task_id)]}

    @endpoint(body=c.CommentCreate, output=c.CommentResult, status=201, operation_id="tasks_comments_create")
    def post(self, request, task_id: int, body: c.CommentCreate):
        """Add a comment (200 when the same text was already there)"""
        comment, created = services.add_comment(
            request.principal, task_id, body, origin=Origin.of_request(request)
        )
        result = c.CommentResult(comment=c.CommentOut.of(comment), created=created)
        return Response(result.model_dump(mode="json"), status=201 if created else 200)


class TaskSnapshotRow(Output):
    id: int
    version: int
    status_id: int
    board_id: int
    updated_at: str


class TaskSnapshot(Output):
    tasks: list[TaskSnapshotRow]
    count: int


class SnapshotView(ApiView):
    """What a polling client needs every few seconds: one aggregate query decides whether anything
    visible changed (ETag); only then are the compact rows sent."""

    @endpoint(
        output=TaskSnapshot,
        operation_id="tasks_snapshot",
        extra_responses={304: None},
        parameters=[OpenApiParameter("If-None-Match", str, OpenApiParameter.HEADER)],
    )
    def get(self, request):
        """Lightweight snapshot of visible tasks (ETag / If-None-Match → 304)"""
        qs = services.visible_tasks(request.principal)
        agg = qs.aggregate(n=Count("id"), changed=Max("updated_at"), versions=Sum("version"), ids=Sum("id"))
        signature = f"{agg['n']}:{agg['changed']}:{agg['versions']}:{agg['ids']}"
        etag = '"' + hashlib.sha256(signature.encode()).hexdigest()[:32] + '"'
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        rows = list(qs.order_by("id").values("id", "version", "status_id", "board_id", "updated_at"))
        return Response(
            {"tasks": rows, "count": agg["n"]}, headers={"ETag": etag, "Cache-Control": "private, no-cache"}
        )
