"""REST API of the chat for mobile clients (`/api/v1/chat/…`): the same services and records as
the page and the WebSocket, on typed endpoints (`apps.core.surfaces.api.endpoint`, `contracts.py`)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from apps.agent import contracts as c
from apps.agent import services
from apps.core.contracts import ErrorOut
from apps.core.surfaces.api import ApiView, endpoint, listed, sliced

PAGE_MAX = 200  # messages per answer


class SessionListView(ApiView):
    @endpoint(query=c.ChatSessionFilter, output=c.ChatSessionPage, operation_id="chat_sessions_list")
    def get(self, request, query: c.ChatSessionFilter):
        """Your chats, most recently used first"""
        sessions = services.search_sessions(request.principal, query.q)
        return listed("sessions", c.ChatSessionOut.of, sliced(sessions, query), query)

    @endpoint(
        body=c.ChatSessionCreate, output=c.ChatSessionResult, status=201, operation_id="chat_sessions_create"
    )
    def post(self, request, body: c.ChatSessionCreate):
        """Start a chat"""
        return {"session": c.ChatSessionOut.of(services.create_session(request.principal, body))}


class SessionDetailView(ApiView):
    @endpoint(output=c.ChatSessionResult, operation_id="chat_sessions_retrieve")
    def get(self, request, session_id: int):
        """One chat"""
        return {"session": c.ChatSessionOut.of(services.get_session(request.principal, session_id))}

    @endpoint(
        body=c.ChatSessionRename,
        output=c.ChatSessionResult,
        operation_id="chat_sessions_rename",
        extra_responses={400: OpenApiResponse(ErrorOut, description="`invalid_chat_input`.")},
    )
    def patch(self, request, session_id: int, body: c.ChatSessionRename):
        """Rename a chat

        The name is the user's: a generated title never replaces it."""
        return {"session": c.ChatSessionOut.of(services.rename_session(request.principal, session_id, body))}

    @endpoint(
        output=None,
        status=204,
        operation_id="chat_sessions_destroy",
        extra_responses={400: OpenApiResponse(ErrorOut, description="`run_in_progress`.")},
    )
    def delete(self, request, session_id: int):
        """Delete a chat with its messages and runs (refused while the copilot answers in it)"""
        services.delete_session(request.principal, session_id)


class MessageListView(ApiView):
    @endpoint(query=c.MessageCursor, output=c.MessageList, operation_id="chat_messages_list")
    def get(self, request, session_id: int, query: c.MessageCursor):
        """Messages of a chat, oldest first, after a cursor"""
        session = services.get_session(request.principal, session_id)
        messages = session.messages.select_related("run").filter(pk__gt=query.after).order_by("id")
        rows = list(messages[: PAGE_MAX + 1])
        more = len(rows) > PAGE_MAX
        rows = rows[:PAGE_MAX]
        return {
            "messages": [c.MessageOut.of(m) for m in rows],
            "next_after": rows[-1].pk if more else None,
        }

    @endpoint(
        body=c.MessageCreate,
        output=c.RunQueued,
        status=202,
        operation_id="chat_messages_create",
        parameters=[OpenApiParameter("X-User-Timezone", str, OpenApiParameter.HEADER, required=False)],
        extra_responses={
            400: OpenApiResponse(ErrorOut, description="`invalid_chat_input`, `run_in_progress` …"),
            404: OpenApiResponse(ErrorOut, description="`chat_session_not_found`, `attachment_not_found`."),
            409: OpenApiResponse(ErrorOut, description="`no_model_configured`."),
        },
    )
    def post(self, request, session_id: int, body: c.MessageCreate):
        """Send a message; the copilot answers in a background run"""
        run = services.post_user_message(
            request.principal, session_id, body, time_zone=request.headers.get("X-User-Timezone", "")
        )
        return {"run_id": run.pk, "status": run.status}


class RunDetailView(ApiView):
    @endpoint(output=c.RunDetail, operation_id="chat_runs_retrieve")
    def get(self, request, run_id: int):
        """Run status and events"""
        run = services.get_run(request.principal, run_id)
        return {"run": c.RunWithEventsOut.of(run)}


class RunCancelView(ApiView):
    @endpoint(
        output=c.RunResult,
        operation_id="chat_runs_cancel",
        extra_responses={409: OpenApiResponse(ErrorOut, description="`cancel_unconfirmed`.")},
    )
    def post(self, request, run_id: int):
        """Stop a run and wait (bounded) until its finalizer confirms the final status

        Answers 200 with the final run; 409 `cancel_unconfirmed` when the run did not confirm the stop
        within the wait (it stays `cancelling`)."""
        return {"run": c.RunOut.of(services.cancel_and_wait(request.principal, run_id))}


class RunRetryView(ApiView):
    @endpoint(
        output=c.RunQueued,
        status=202,
        operation_id="chat_runs_retry",
        extra_responses={
            400: OpenApiResponse(ErrorOut, description="`run_in_progress`."),
            409: OpenApiResponse(
                ErrorOut,
                description="`run_not_retryable` (not the chat's last answer, or not failed or stopped).",
            ),
        },
    )
    def post(self, request, run_id: int):
        """Try a stopped or failed answer again

        Queues a new run for the same question (no new message; `retry_of_id` names this run), with
        the same model and limits. Only the chat's last answer, only when it failed or was stopped."""
        run = services.retry_run(request.principal, run_id)
        return {"run_id": run.pk, "status": run.status}
