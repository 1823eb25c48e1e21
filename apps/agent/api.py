"""REST API of the chat for mobile clients (`/api/v1/chat/…`): the same services as the page."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.services import ATTACHMENTS_MAX, CONTENT_MAX

PAGE_MAX = 200


def _principal(request) -> Principal:
    return Principal.for_user(request.user)


def _session_record(session) -> dict:
    return {
        "id": session.pk,
        "title": session.title,
        "created_at": session.created_at.isoformat(),
        "updated_at": session.updated_at.isoformat(),
    }


class SessionCreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class MessageCreateSerializer(serializers.Serializer):
    content = serializers.CharField(max_length=CONTENT_MAX)
    model_id = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=80,
        help_text="A model id or a virtual model `moa/<slug>`.",
    )
    max_rounds = serializers.IntegerField(required=False, min_value=1, max_value=100)
    budget = serializers.DecimalField(required=False, max_digits=10, decimal_places=4, min_value=0)
    document_ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=ATTACHMENTS_MAX,
        help_text="Documents attached to the message (upload them first via /api/v1/documents/); "
        "each must be visible to you, else 404 `attachment_not_found` and nothing is stored.",
    )


@extend_schema(tags=["chat"])
class SessionListView(APIView):
    @extend_schema(
        operation_id="chat_sessions_list", responses={200: OpenApiTypes.OBJECT}, summary="Your chats"
    )
    def get(self, request):
        sessions = services.list_sessions(_principal(request))[:PAGE_MAX]
        return Response({"sessions": [_session_record(s) for s in sessions]})

    @extend_schema(
        operation_id="chat_sessions_create",
        request=SessionCreateSerializer,
        responses={201: OpenApiTypes.OBJECT},
        summary="Start a chat",
    )
    def post(self, request):
        data = SessionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session = services.create_session(_principal(request), data.validated_data["title"])
        return Response({"session": _session_record(session)}, status=201)


@extend_schema(tags=["chat"])
class MessageListView(APIView):
    @extend_schema(
        operation_id="chat_messages_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="Messages of a chat, oldest first, after a cursor",
        parameters=[OpenApiParameter("after", int, description="Only messages with a larger id.")],
    )
    def get(self, request, session_id: int):
        session = services.get_session(_principal(request), session_id)
        try:
            after = int(request.query_params.get("after") or 0)
        except ValueError:
            after = 0
        rows = list(session.messages.filter(pk__gt=after).order_by("id")[: PAGE_MAX + 1])
        more = len(rows) > PAGE_MAX
        rows = rows[:PAGE_MAX]
        return Response(
            {
                "messages": [services.serialize_message(m) for m in rows],
                "next_after": rows[-1].pk if more else None,
            }
        )

    @extend_schema(
        operation_id="chat_messages_create",
        request=MessageCreateSerializer,
        responses={202: OpenApiTypes.OBJECT},
        summary="Send a message; the copilot answers in a background run",
        parameters=[OpenApiParameter("X-User-Timezone", str, OpenApiParameter.HEADER, required=False)],
    )
    def post(self, request, session_id: int):
        data = MessageCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        run = services.post_user_message(
            _principal(request),
            session_id,
            v["content"],
            model_id=v.get("model_id"),
            max_rounds=v.get("max_rounds"),
            budget=v.get("budget"),
            time_zone=request.headers.get("X-User-Timezone", ""),
            document_ids=v.get("document_ids"),
        )
        return Response({"run_id": run.pk, "status": run.status}, status=202)


@extend_schema(tags=["chat"])
class RunDetailView(APIView):
    @extend_schema(
        operation_id="chat_runs_retrieve",
        responses={200: OpenApiTypes.OBJECT},
        summary="Run status and events",
    )
    def get(self, request, run_id: int):
        run = services.get_run(_principal(request), run_id)
        return Response({"run": services.serialize_run(run, events=True)})


@extend_schema(tags=["chat"])
class RunCancelView(APIView):
    @extend_schema(
        operation_id="chat_runs_cancel",
        request=None,
        responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT},
        summary="Stop a run and wait (bounded) until its finalizer confirms the final status",
        description="Answers 200 with the final run; 409 `cancel_unconfirmed` when the run did not "
        "confirm the stop within the wait (it stays `cancelling`).",
    )
    def post(self, request, run_id: int):
        run = services.cancel_and_wait(_principal(request), run_id)
        return Response({"run": services.serialize_run(run)}, status=200)
