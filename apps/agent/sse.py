"""`GET /api/v1/chat/runs/<id>/events/stream`: a run's events as Server-Sent Events, for clients
without WebSockets. Same payloads as the socket (`id:` = event id, `event:` = kind); resumes after
`?after=<id>` or `Last-Event-ID`; ends after the run's final status event."""

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
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Run, RunEvent

POLL_SECONDS = 0.25
HEARTBEAT_SECONDS = 15.0
STREAM_MAX_SECONDS = 10 * 60
RETRY_MILLISECONDS = 2000
BATCH = 500


class _StreamGate(APIView):
    """DRF authentication and the owner check, run by the async stream view."""

    def get(self, request: Request, run_id: int) -> Response:
        run = services.get_run(Principal.for_user(request.user), run_id)
        raw = request.headers.get("Last-Event-ID") or request.query_params.get("after") or "0"
        try:
            after = max(int(raw), 0)
        except ValueError:
            return Response({"code": "invalid_arguments", "message": "after must be an integer"}, status=400)
        return Response({"run_id": run.pk, "after": after})


_gate_view = _StreamGate.as_view()


async def run_event_stream(request: HttpRequest, run_id: int) -> HttpResponse:
    gate = await sync_to_async(_gate_view)(request, run_id=run_id)
    if gate.status_code != 200:
        gate.render()
        return gate
    response = StreamingHttpResponse(
        _stream(gate.data["run_id"], gate.data["after"]), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def format_sse(event: dict[str, Any]) -> str:
    data = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
    return f"id: {event['id']}\nevent: {event['kind']}\ndata: {data}\n\n"


def _next(run_id: int, cursor: int) -> tuple[list[dict], bool]:
    rows = RunEvent.objects.filter(run_id=run_id, pk__gt=cursor).order_by("pk")[:BATCH]
    final = Run.objects.filter(pk=run_id, status__in=Run.FINAL).exists()
    return [services.serialize_event(e) for e in rows], final


async def _stream(run_id: int, after: int) -> AsyncIterator[str]:
    cursor = after
    started = last_write = time.monotonic()
    try:
        yield f"retry: {RETRY_MILLISECONDS}\nid: {cursor}\n\n"
        while time.monotonic() - started < STREAM_MAX_SECONDS:
            events, final = await database_sync_to_async(_next)(run_id, cursor)
            now = time.monotonic()
            if events:
                cursor = events[-1]["id"]
                last_write = now
                yield "".join(format_sse(e) for e in events)
                if len(events) == BATCH:
                    continue
            if final and not events:
                yield "event: end\ndata: {}\n\n"
                return
            if now - last_write >= HEARTBEAT_SECONDS:
                last_write = now
                yield ": keepalive\n\n"
            await asyncio.sleep(POLL_SECONDS)
    finally:
        await sync_to_async(connections.close_all)()
