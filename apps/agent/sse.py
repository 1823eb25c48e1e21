"""`GET /api/v1/chat/runs/<id>/events/stream`: a run's events as Server-Sent Events, for clients
without WebSockets. Same payloads as the socket (`id:` = event id, `event:` = kind); resumes after
`?after=<id>` or `Last-Event-ID`; ends after the run's final status event."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework.request import Request
from rest_framework.response import Response

from apps.agent import contracts as c
from apps.agent import services
from apps.agent.models import Run, RunEvent
from apps.core.realtime.sse import LAST_EVENT_ID, documented_by, gate_answer, poll_stream, stream_response
from apps.core.surfaces.api import ApiView, endpoint, parse

POLL_SECONDS = 0.25
HEARTBEAT_SECONDS = 15.0
STREAM_MAX_SECONDS = 10 * 60
RETRY_MILLISECONDS = 2000
BATCH = 500
STREAM_RESPONSE = OpenApiResponse(
    OpenApiTypes.STR,
    description="text/event-stream: one event per run event (`id:` = its id, `event:` = its kind, "
    "`data:` = the event as `chat_runs_retrieve` lists it), `: keepalive` comments, `event: end`.",
)


class _StreamGate(ApiView):
    """DRF authentication and the owner check, run by the async stream view, and its OpenAPI
    description (the stream itself is not a DRF view, see `run_event_stream`)."""

    @endpoint(
        query=c.StreamCursor,
        output=None,
        extra_responses={(200, "text/event-stream"): STREAM_RESPONSE},
        operation_id="chat_runs_events_stream",
        parameters=[LAST_EVENT_ID],
    )
    def get(self, request: Request, run_id: int, query: c.StreamCursor) -> Response:
        """A run's events as Server-Sent Events

        For clients without WebSockets: the same payloads as the socket; resumes after `?after=` or
        `Last-Event-ID`; ends after the run's final status event."""
        run = services.get_run(request.principal, run_id)
        header = request.headers.get("Last-Event-ID")
        after = parse(c.StreamCursor, {"after": header}).after if header else query.after
        return Response({"run_id": run.pk, "after": max(after, 0)})


_gate_view = _StreamGate.as_view()


async def run_event_stream(request: HttpRequest, run_id: int) -> HttpResponse:
    gate = await sync_to_async(_gate_view)(request, run_id=run_id)
    if (answer := gate_answer(request, gate)) is not None:
        return answer
    return stream_response(_stream(gate.data["run_id"], gate.data["after"]))


documented_by(run_event_stream, _StreamGate)


def format_sse(event: dict[str, Any]) -> str:
    data = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    return f"id: {event['id']}\nevent: {event['kind']}\ndata: {data}\n\n"


def _next(run_id: int, cursor: int) -> tuple[list[dict], bool]:
    rows = RunEvent.objects.filter(run_id=run_id, pk__gt=cursor).order_by("pk")[:BATCH]
    final = Run.objects.filter(pk=run_id, status__in=Run.FINAL).exists()
    return [c.RunEventOut.record(e) for e in rows], final


def _stream(run_id: int, after: int) -> AsyncIterator[str]:
    return poll_stream(
        lambda cursor: _next(run_id, cursor),
        after,
        format_event=format_sse,
        batch=BATCH,
        poll_seconds=POLL_SECONDS,
        heartbeat_seconds=HEARTBEAT_SECONDS,
        max_seconds=STREAM_MAX_SECONDS,
        retry_milliseconds=RETRY_MILLISECONDS,
    )
