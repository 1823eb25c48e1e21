"""HTTP access to UI mutation events for clients without the page WebSocket.

`GET /api/ui-mutation-events` is a bounded JSON cursor (mobile apps poll it); `.../stream` is
Server-Sent Events for long-lived clients. Both authenticate through the project's DRF defaults,
so every credential the API accepts (session today, API keys and device tokens later) works here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.http import HttpRequest, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.realtime.sse import LAST_EVENT_ID, documented_by, gate_answer, poll_stream, stream_response
from apps.core.surfaces.api import ApiView, endpoint, parse
from apps.mutations import contracts as c
from apps.mutations import services

POLL_SECONDS = 1.0
HEARTBEAT_SECONDS = 15.0
# Streams end after this long and the EventSource reconnects with Last-Event-ID: that
# re-authenticates (a logged-out or disabled user stops receiving) and recycles connections.
STREAM_MAX_SECONDS = 10 * 60
RETRY_MILLISECONDS = 3000
STREAM_RESPONSE = OpenApiResponse(
    OpenApiTypes.STR, description="text/event-stream: `mutation` events and `: keepalive` comments."
)


class MutationEventListView(ApiView):
    """The caller's UI mutation events after a cursor, oldest first."""

    @endpoint(query=c.CursorQuery, output=c.MutationEventPage, operation_id="ui_mutation_events_list")
    def get(self, request: Request, query: c.CursorQuery):
        """Your UI mutation events after a cursor

        Events visible to the caller with an id greater than `after`. Repeat with `after=next_after` until
        fewer than `limit` events come back. Treat only explicit `remove` actions as deletions."""
        events = list(services.visible_events(request.user, query.after, query.limit))
        return {
            "events": [services.serialize_event(event) for event in events],
            "next_after": events[-1].id if events else query.after,
        }


class _StreamGate(ApiView):
    """DRF's authentication, permission and throttle checks for the SSE view, and its OpenAPI
    description (the stream itself is not a DRF view, see `mutation_event_stream`).

    The stream must be an async view to hold thousands of connections; DRF views are sync. This
    view runs the same lifecycle and hands back who asked and from where to start.
    """

    # The body is text, not JSON: the media-typed response replaces the endpoint's own (an
    # `extra_responses` entry would be merged into an empty 200 that has no content).
    @extend_schema(responses={(200, "text/event-stream"): STREAM_RESPONSE})
    @endpoint(
        query=c.StreamQuery,
        output=None,
        operation_id="ui_mutation_events_stream",
        parameters=[LAST_EVENT_ID],
    )
    def get(self, request: Request, query: c.StreamQuery) -> Response:
        """Your UI mutation events as Server-Sent Events

        One `mutation` event per UI mutation event (`id:` = the event id, `data:` = the event as the JSON
        cursor returns it), `: keepalive` comments in between. Without `after` or `Last-Event-ID` the
        stream starts at the newest event. It ends after ten minutes; the EventSource reconnects with
        Last-Event-ID."""
        header = request.headers.get("Last-Event-ID")
        resume = parse(c.StreamResume, {"last_event_id": header} if header else {})
        after = resume.last_event_id if resume.last_event_id is not None else query.after
        return Response({"user": request.user, "after": after})


_gate_view = _StreamGate.as_view()


async def mutation_event_stream(request: HttpRequest) -> HttpResponse:
    """Server-Sent Events: one `mutation` event per UI mutation event, `id:` = event id.

    Without `after` (or Last-Event-ID) the stream starts at the newest event: the client just
    loaded its data. The database is polled about once a second through the settled cursor, so
    the stream never skips an event that commits out of id order.
    """
    gate = await sync_to_async(_gate_view)(request)
    if (answer := gate_answer(request, gate)) is not None:
        return answer
    user, after = gate.data["user"], gate.data["after"]
    if after is None:
        after = await database_sync_to_async(services.head_id)()
    return stream_response(_event_stream(user, after))


documented_by(mutation_event_stream, _StreamGate)


def _next_events(user: Any, cursor: int) -> tuple[list[dict[str, Any]], bool]:
    """The next events after `cursor`; the stream never ends on its own (`final` is never set)."""
    events = services.visible_events(user, cursor, services.MAX_LIMIT)
    return [services.serialize_event(event) for event in events], False


def format_sse(event: dict[str, Any]) -> str:
    return f"id: {event['id']}\nevent: mutation\ndata: {json.dumps(event, separators=(',', ':'))}\n\n"


def _event_stream(user: Any, after: int) -> AsyncIterator[str]:
    """Yields until the client disconnects (Django cancels the task) or STREAM_MAX_SECONDS pass."""
    return poll_stream(
        lambda cursor: _next_events(user, cursor),
        after,
        format_event=format_sse,
        batch=services.MAX_LIMIT,
        poll_seconds=POLL_SECONDS,
        heartbeat_seconds=HEARTBEAT_SECONDS,
        max_seconds=STREAM_MAX_SECONDS,
        retry_milliseconds=RETRY_MILLISECONDS,
    )
