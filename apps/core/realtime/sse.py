"""Server-Sent Events plumbing shared by the streams for clients without WebSockets (a chat run's
events, the UI mutation events).

A stream is an async view that first runs a DRF view (the "gate": authentication, permissions,
throttles and the OpenAPI description), then answers `stream_response(poll_stream(...))`:

* `poll_stream(next_batch, after, ...)` polls `next_batch(cursor) -> (events, final)` in a worker
  thread and yields each batch as SSE text (`format_event`), `: keepalive` comments while nothing
  happens, `event: end` once `final` is set and no event is left; it ends after `max_seconds`
  (the EventSource reconnects with Last-Event-ID) and closes the thread's database connections.
* `documented_by(view, gate)`: OpenAPI finds an API view by its `cls`, as `as_view()` sets it;
  `LAST_EVENT_ID` documents the header a reconnecting EventSource sends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import connections
from django.http import StreamingHttpResponse
from django.http.response import HttpResponseBase
from drf_spectacular.utils import OpenApiParameter

# The header an EventSource sends when it reconnects; a gate's `endpoint(parameters=[...])`.
LAST_EVENT_ID = OpenApiParameter(
    "Last-Event-ID",
    int,
    OpenApiParameter.HEADER,
    description="Resume after this event id (sent by an EventSource); wins over ?after=.",
)


def stream_response(stream: AsyncIterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response


def gate_answer(request, gate) -> HttpResponseBase | None:
    """The gate's own response when there is no stream to start: a refusal, or a method other
    than GET (OPTIONS answers the gate's metadata, as any DRF view does; HEAD its headers)."""
    if gate.status_code == 200 and request.method == "GET":
        return None
    if hasattr(gate, "render") and not getattr(gate, "is_rendered", True):
        gate.render()
    return gate


def documented_by(view: Callable, gate: type) -> Callable:
    """The async stream view routed by the URL, documented as its gate's DRF view."""
    view.cls = gate
    view.initkwargs = {}
    return view


async def poll_stream(
    next_batch: Callable[[int], tuple[list[dict[str, Any]], bool]],
    after: int,
    *,
    format_event: Callable[[dict[str, Any]], str],
    batch: int,
    poll_seconds: float,
    heartbeat_seconds: float,
    max_seconds: float,
    retry_milliseconds: int,
) -> AsyncIterator[str]:
    """Yields until the client disconnects (Django cancels the task), the source is final, or
    `max_seconds` pass. A full batch is followed at once by the next (more are waiting)."""
    cursor = after
    started = last_write = time.monotonic()
    try:
        # The id line sets Last-Event-ID at once, so a reconnect resumes here even if no event came.
        yield f"retry: {retry_milliseconds}\nid: {cursor}\n\n"
        while time.monotonic() - started < max_seconds:
            events, final = await database_sync_to_async(next_batch)(cursor)
            now = time.monotonic()
            if events:
                cursor = events[-1]["id"]
                last_write = now
                yield "".join(format_event(event) for event in events)
                if len(events) == batch:
                    continue  # more are waiting: no pause
            elif final:
                yield "event: end\ndata: {}\n\n"
                return
            elif now - last_write >= heartbeat_seconds:
                last_write = now
                yield ": keepalive\n\n"
            await asyncio.sleep(poll_seconds)
    finally:
        # This context's worker thread is discarded with the request; do not leak its connection.
        await sync_to_async(connections.close_all)()
