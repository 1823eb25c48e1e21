"""REST API of Aufgaben for mobile clients (`/api/v1/tasks/…`). Same services, same records,
same filters as the tools and pages; domain errors map to HTTP in `apps.core.api`."""

from __future__ import annotations

import hashlib

from django.db.models import Count, Max, Sum
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import page, principal, validated
from apps.tasks import services
from apps.tasks.models import COMMENT_MAX, DESCRIPTION_MAX, TITLE_MAX, Board, Comment, Task, TaskStatus
from apps.tasks.records import board_record, comment_record, status_record, task_record


class TaskFilterSerializer(serializers.Serializer):
    board = serializers.IntegerField(required=False)
    status = serializers.IntegerField(required=False)
    category = serializers.ChoiceField(choices=TaskStatus.Category.values, required=False)
    unfinished = serializers.BooleanField(required=False, default=None, allow_null=True)
    assignee = serializers.IntegerField(required=False)
    due_from = serializers.DateField(required=False)
    due_to = serializers.DateField(required=False)
    client_id = serializers.IntegerField(required=False)
    q = serializers.CharField(required=False, max_length=200)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_PAGE, default=50)
    offset = serializers.IntegerField(required=False, min_value=0, default=0)


class TaskWriteSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=TITLE_MAX)
    description = serializers.CharField(max_length=DESCRIPTION_MAX, required=False, allow_blank=True)
    board_id = serializers.IntegerField(required=False, allow_null=True)
    status_id = serializers.IntegerField(required=False, allow_null=True)
    assignee_id = serializers.IntegerField(required=False, allow_null=True)
    priority = serializers.ChoiceField(choices=Task.Priority.values, required=False)
    due_date = serializers.DateField(required=False, allow_null=True)
    follow_up_date = serializers.DateField(required=False, allow_null=True)
    client_id = serializers.IntegerField(required=False, allow_null=True)
    source_label = serializers.CharField(max_length=200, required=False, allow_blank=True)
    source_url = serializers.CharField(max_length=500, required=False, allow_blank=True)


class TaskPatchSerializer(TaskWriteSerializer):
    title = serializers.CharField(max_length=TITLE_MAX, required=False)
    expected_version = serializers.IntegerField(required=False, min_value=1)

    def validate(self, attrs):
        attrs.pop("source_label", None)
        attrs.pop("source_url", None)
        return attrs


class MoveSerializer(serializers.Serializer):
    status_id = serializers.IntegerField(required=False)
    board_id = serializers.IntegerField(required=False)
    position = serializers.IntegerField(required=False, min_value=0)


class CommentSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=COMMENT_MAX)


class BoardSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    visibility = serializers.ChoiceField(choices=Board.Visibility.values, default=Board.Visibility.SHARED)
    share_with = serializers.ListField(child=serializers.IntegerField(), required=False, default=list)


@extend_schema(tags=["tasks"])
class BoardListView(APIView):
    @extend_schema(
        operation_id="tasks_boards_list", responses={200: OpenApiTypes.OBJECT}, summary="Boards you can see"
    )
    def get(self, request):
        return Response({"boards": [board_record(b) for b in services.list_boards(principal(request))]})

    @extend_schema(
        operation_id="tasks_boards_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Create a board",
        request=BoardSerializer,
    )
    def post(self, request):
        board = services.create_board(principal(request), **validated(BoardSerializer, request.data))
        return Response({"board": board_record(board)}, status=201)


@extend_schema(tags=["tasks"])
class StatusListView(APIView):
    @extend_schema(
        operation_id="tasks_statuses_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="Task statuses (columns) in order",
    )
    def get(self, request):
        return Response({"statuses": [status_record(s) for s in services.list_statuses()]})


@extend_schema(tags=["tasks"])
class TaskListView(APIView):
    @extend_schema(
        operation_id="tasks_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="List tasks (filters, pagination, total)",
        parameters=[TaskFilterSerializer],
    )
    def get(self, request):
        f = validated(TaskFilterSerializer, request.query_params)
        tasks, total = services.list_tasks(
            principal(request),
            board_id=f.get("board"),
            status_id=f.get("status"),
            category=f.get("category"),
            unfinished=f.get("unfinished"),
            assignee_id=f.get("assignee"),
            due_from=f.get("due_from"),
            due_to=f.get("due_to"),
            client_id=f.get("client_id"),
            query=f.get("q"),
            limit=f["limit"],
            offset=f["offset"],
        )
        return page("tasks", [task_record(t) for t in tasks], total, f["limit"], f["offset"])

    @extend_schema(
        operation_id="tasks_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Create a task",
        request=TaskWriteSerializer,
    )
    def post(self, request):
        data = validated(TaskWriteSerializer, request.data)
        task = services.create_task(principal(request), **data, source_type=Task.Source.API)
        return Response({"task": task_record(task)}, status=201)


@extend_schema(tags=["tasks"])
class TaskDetailView(APIView):
    @extend_schema(
        operation_id="tasks_retrieve",
        responses={200: OpenApiTypes.OBJECT},
        summary="One task with its comments",
    )
    def get(self, request, task_id: int):
        task = services.get_task(principal(request), task_id)
        return Response(
            {"task": task_record(task), "comments": [comment_record(c) for c in task.comments.all()]}
        )

    @extend_schema(
        operation_id="tasks_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Change some fields (partial); optional expected_version",
        request=TaskPatchSerializer,
    )
    def patch(self, request, task_id: int):
        data = dict(validated(TaskPatchSerializer, request.data))
        expected = data.pop("expected_version", None)
        task = services.update_task(principal(request), task_id, data, expected_version=expected)
        return Response({"task": task_record(task)})

    @extend_schema(operation_id="tasks_destroy", responses={204: None}, summary="Delete a task")
    def delete(self, request, task_id: int):
        services.delete_task(principal(request), task_id)
        return Response(status=204)


@extend_schema(tags=["tasks"])
class TaskMoveView(APIView):
    @extend_schema(
        operation_id="tasks_move",
        responses={200: OpenApiTypes.OBJECT},
        summary="Move to a column / board / position",
        request=MoveSerializer,
    )
    def post(self, request, task_id: int):
        data = validated(MoveSerializer, request.data)
        task = services.move_task(principal(request), task_id, **data)
        return Response({"task": task_record(task)})


@extend_schema(tags=["tasks"])
class CommentListView(APIView):
    @extend_schema(
        operation_id="tasks_comments_list", responses={200: OpenApiTypes.OBJECT}, summary="Comments of a task"
    )
    def get(self, request, task_id: int):
        return Response(
            {"comments": [comment_record(c) for c in services.list_comments(principal(request), task_id)]}
        )

    @extend_schema(
        operation_id="tasks_comments_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Add a comment",
        request=CommentSerializer,
    )
    def post(self, request, task_id: int):
        body = validated(CommentSerializer, request.data)["body"]
        comment, created = services.add_comment(
            principal(request), task_id, body=body, author_type=Comment.AuthorType.USER
        )
        return Response(
            {"comment": comment_record(comment), "created": created}, status=201 if created else 200
        )


@extend_schema(tags=["tasks"])
class SnapshotView(APIView):
    """What a polling client needs every few seconds: one aggregate query decides whether anything
    visible changed (ETag); only then are the compact rows sent."""

    @extend_schema(
        operation_id="tasks_snapshot",
        responses={200: OpenApiTypes.OBJECT, 304: None},
        summary="Lightweight snapshot of visible tasks (ETag / If-None-Match → 304)",
        parameters=[OpenApiParameter("If-None-Match", str, OpenApiParameter.HEADER)],
    )
    def get(self, request):
        qs = services.visible_tasks(principal(request))
        agg = qs.aggregate(n=Count("id"), changed=Max("updated_at"), versions=Sum("version"), ids=Sum("id"))
        signature = f"{agg['n']}:{agg['changed']}:{agg['versions']}:{agg['ids']}"
        etag = '"' + hashlib.sha256(signature.encode()).hexdigest()[:32] + '"'
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        rows = list(qs.order_by("id").values("id", "version", "status_id", "board_id", "updated_at"))
        return Response(
            {"tasks": rows, "count": agg["n"]}, headers={"ETag": etag, "Cache-Control": "private, no-cache"}
        )
