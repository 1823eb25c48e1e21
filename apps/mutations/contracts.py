"""The typed contract of the UI mutation event API: the cursor's and the stream's query, and the
one wire shape of an event (`services.serialize_event`, sent alike over the WebSocket, the SSE
stream and the JSON cursor)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import Field, PlainSerializer, WithJsonSchema

from apps.core.contracts import Input, Output
from apps.mutations.services import DEFAULT_LIMIT, MAX_LIMIT

# The socket and the stream send `created_at.isoformat()`; the cursor answers the same text.
IsoDateTime = Annotated[
    dt.datetime,
    PlainSerializer(lambda value: value.isoformat(), return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]


class MutationEventOut(Output):
    id: int
    topic: str
    ui_actions: list[dict[str, Any]] = Field(description="What open views apply, in order.")
    trigger_reload: bool
    refresh_topic: str = Field(description="Views showing this topic refetch their data; empty: none.")
    origin_tool: str
    origin_run: str
    actor_id: int | None = Field(default=None, description="Who caused the change; null: the system.")
    operation: str = Field(
        default="", description="Events of one user action (a request, a tool call, its jobs) share it."
    )
    created_at: IsoDateTime


class MutationEventPage(Output):
    events: list[MutationEventOut]
    next_after: int = Field(description="Pass as ?after= on the next request.")


class CursorQuery(Input):
    after: int = Field(default=0, ge=0, description="Return events with an id greater than this.")
    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description="Maximum number of events; fewer means the client has caught up.",
    )


class StreamQuery(Input):
    after: int | None = Field(
        default=None, ge=0, description="Start after this event id; default: at the newest event."
    )


class StreamResume(Input):
    """The `Last-Event-ID` header an EventSource sends when it reconnects; it wins over ?after=."""

    last_event_id: int | None = Field(default=None, ge=0)
