"""HTTP access to UI mutation events for clients without the page WebSocket.

`GET /api/ui-mutation-events` is a bounded JSON cursor (mobile apps poll it); `.../stream` is
Server-Sent Events for long-lived clients. Both authenticate through the project's DRF defaults,
so every credential the API accepts (session today, API keys and device tokens later) works here.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.mutations import services
from apps.mutations.serializers import (
    CursorQuerySerializer,
    MutationEventPageSerializer,
    StreamQuerySerializer,
)

POLL_SECONDS = 1.0
HEARTBEAT_SECONDS = 15.0
# Streams end after this long and the EventSource reconnects with Last-Event-ID: that
# re-authenticates (a logged-out or disabled user stops receiving) and recycles connections.
STREAM_MAX_SECONDS = 10 * 60
RETRY_MILLISECONDS = 3000


class MutationEventListView(APIView):
    """The caller's UI mutation events after a cursor, oldest first."""

    @extend_schema(
        operation_id="ui_mutation_events_list",
        parameters=[CursorQuerySerializer],
        responses=MutationEventPageSerializer,
        description=(
            "Events visible to the caller with an id greater than `after`. Repeat with "
            "`after=next_after` until fewer than `limit` events come back. Treat only explicit "
            "`remove` actions as deletions."
        ),
    )
    def get(self, request: Request) -> Response:
        query = CursorQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after, limit = query.validated_data["after"], query.validated_data["limit"]
        events = list(services.visible_events(request.user, after, limit))
        return Response(
            {
                "events": [services.serialize_event(event) for event in events],
                "next_after": events[-1].id if events else after,
            }
        )


class _StreamGate(APIView):
    """DRF's authentication, permission and throttle checks for the SSE view.

    The stream must be an async view to hold thousands of connections; DRF views are sync. This
    view runs the same lifecycle and hands back who asked and from where to start.
    """

    def get(self, request: Request) -> Response:
        data: dict[str, Any] = {}
        if "after" in request.query_params:
            data["after"] = request.query_params["after"]
        if request.headers.get("Last-Event-ID"):
            data["last_event_id"] = request.headers["Last-Event-ID"]
        query = StreamQuerySerializer(data=data)
        query.is_valid(raise_exception=True)
        validated = query.validated_data
        after = validated.get("last_event_id")
        if after is None:
            after = validated.get("after")
        return Response({"user": request.user, "after": after})


_gate_view = _StreamGate.as_view()


async def mutation_event_stream(request: HttpRequest) -> HttpResponse:
    """Server-Sent Events: one `mutation` event per UI mutation event, `id:` = event id.

    Without `after` (or Last-Event-ID) the stream starts at the newest event: the client just
    loaded its data. The database is polled about once a second through the settled cursor, so
    the stream never skips an event that commits out of id order.
    """
    gate = await sync_to_async(_gate_view)(request)
    if gate.status_code != 200:
        return gate
    user, after = gate.data["user"], gate.data["after"]
    if after is None:
        after = await database_sync_to_async(services.head_id)()
    response = StreamingHttpResponse(_event_stream(user, after), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response


def _next_events(user: Any, cursor: int) -> list[dict[str, Any]]:
    return [
        services.serialize_event(event) for event in services.visible_events(user, cursor, services.MAX_LIMIT)
    ]


def format_sse(event: dict[str, Any]) -> str:
    return f"id: {event['id']}\nevent: mutation\ndata: {json.dumps(event, separators=(',', ':'))}\n\n"


async def _event_stream(user: Any, after: int) -> AsyncIterator[str]:
    """Yields until the client disconnects (Django cancels the task) or STREAM_MAX_SECONDS pass."""
    cursor = after
    started = last_write = time.monotonic()
    try:
        # The id line sets Last-Event-ID at once, so a reconnect resumes here even if no event came.
        yield f"retry: {RETRY_MILLISECONDS}\nid: {cursor}\n\n"
        while time.monotonic() - started < STREAM_MAX_SECONDS:
            events = await database_sync_to_async(_next_events)(user, cursor)
            now = time.monotonic()
            if events:
                cursor = events[-1]["id"]
                last_write = now
                yield "".join(format_sse(event) for event in events)
                if len(events) == services.MAX_LIMIT:
                    continue  # more are waiting: no pause
            elif now - last_write >= HEARTBEAT_SECONDS:
                last_write = now
                yield ": keepalive\n\n"
            await asyncio.sleep(POLL_SECONDS)
    finally:
        # This context's worker thread is discarded with the request; do not leak its connection.
        await sync_to_async(connections.close_all)()
