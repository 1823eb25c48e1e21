"""Agent tools of the Kalender (family `calendar`, core: never install-gated).

Thin on purpose: parse arguments, call the service, shape the output. Live UI actions come from
the mutation events the services record. Agents read before they write (list the time range to
avoid duplicates) and read after they write (`calendar_get_event`): the read-back is authoritative.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from apps.calendar import services
from apps.calendar.models import DESCRIPTION_MAX, RRULE_MAX, TITLE_MAX, CalendarEvent
from apps.calendar.records import event_record
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.tools.results import page_output

FAMILY = "calendar"
Kind = Literal["event", "deadline"]
Criticality = Literal["low", "normal", "high", "critical"]
Visibility = Literal["shared", "private"]
MOMENT = "ISO 8601 with offset, e.g. 2026-12-01T10:00:00+01:00 (a date like 2026-12-01 for all-day)"


def _origin(ctx: ToolContext) -> str:
    return CalendarEvent.Source.API if ctx.surface == "api" else CalendarEvent.Source.AGENT


class ListEventsArgs(Args):
    query: str | None = Field(
        default=None, max_length=200, description="Words in title, description, place or client name."
    )
    start: str | None = Field(
        default=None, max_length=40, description=f"Window start, {MOMENT}. Default: today."
    )
    end: str | None = Field(
        default=None, max_length=40, description=f"Window end, {MOMENT}. Default: start + 31 days."
    )
    kind: Kind | None = Field(default=None, description="Only appointments (event) or Fristen (deadline).")
    client_id: int | None = Field(default=None, description="Only entries of this client (Mandant).")
    limit: int = Field(default=50, ge=1, le=services.MAX_PAGE, description="Page size.")
    offset: int = Field(default=0, ge=0, description="Skip this many occurrences (pagination).")


@tool(
    name="calendar_list_events",
    family=FAMILY,
    read_only=True,
    description="List calendar entries (appointments and Fristen) in a time window, recurring series "
    "expanded into their occurrences, sorted by start; returns full records and the total. List the "
    "time range before creating an entry to avoid duplicates.",
)
def list_events(ctx: ToolContext, args: ListEventsArgs) -> dict:
    found, total = services.list_events(ctx.principal, **args.model_dump())
    return page_output(
        "events", [event_record(o.event, o) for o in found], total, limit=args.limit, offset=args.offset
    )


class EventIdArgs(Args):
    event_id: int = Field(description="The calendar entry's id.")


@tool(name="calendar_get_event", family=FAMILY, read_only=True, description="Get one calendar entry.")
def get_event(ctx: ToolContext, args: EventIdArgs) -> dict:
    return {"event": event_record(services.get_event(ctx.principal, args.event_id))}


class EventFields(Args):
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    all_day: bool | None = Field(default=None, description="A whole-day entry (start/end as dates).")
    time_zone: str | None = Field(default=None, max_length=64, description="IANA zone, default yours.")
    location: str | None = Field(default=None, max_length=300)
    visibility: Visibility | None = Field(
        default=None, description="shared: office calendar (default); private: only you."
    )
    attendee_ids: list[int] | None = Field(default=None, description="Staff ids taking part.")
    conference_url: str | None = Field(default=None, max_length=500, description="Video meeting link.")
    conference_provider: str | None = Field(
        default=None, max_length=60, description="e.g. Teams, Zoom, Google Meet."
    )
    legal_basis: str | None = Field(
        default=None, max_length=300, description="Frist: legal basis, e.g. § 355 AO."
    )
    criticality: Criticality | None = Field(default=None, description="Frist: how bad missing it would be.")
    source_label: str | None = Field(default=None, max_length=200, description="Where the entry came from.")
    client_id: int | None = Field(
        default=None, description="The Mandant concerned (id from mandanten_search or mandanten_list)."
    )
    rrule: str | None = Field(
        default=None,
        max_length=RRULE_MAX,
        description="RFC 5545 RRULE, must end: e.g. FREQ=WEEKLY;BYDAY=MO;COUNT=10",
    )
    recurrence_until: str | None = Field(
        default=None, max_length=40, description="Last day of the series (YYYY-MM-DD)."
    )
    remind_minutes_before: int | None = Field(default=None, ge=0, le=86400, description="Reminder lead time.")


class CreateEventArgs(EventFields):
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    start: str = Field(max_length=40, description=f"Start, or the due moment of a Frist; {MOMENT}.")
    end: str | None = Field(default=None, max_length=40, description=f"End, {MOMENT}. Default: start + 1 h.")
    kind: Kind = Field(default="event", description="event: appointment; deadline: a Frist.")


@tool(
    name="calendar_create_event",
    family=FAMILY,
    read_only=False,
    description="Create an appointment or a Frist (kind=deadline, start = due moment). Read it back "
    "with calendar_get_event before reporting success.",
)
def create_event(ctx: ToolContext, args: CreateEventArgs) -> dict:
    values = {k: v for k, v in args.model_dump().items() if v is not None}
    event = services.create_event(ctx.principal, **values, source_origin=_origin(ctx))
    return {"event": event_record(event)}


Clearable = Literal[
    "description", "location", "conference_url", "conference_provider", "legal_basis", "source_label",
    "client_id", "rrule", "remind_minutes_before", "attendee_ids",
]  # fmt: skip


class UpdateEventArgs(EventFields):
    event_id: int
    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    start: str | None = Field(
        default=None, max_length=40, description=f"{MOMENT}; the duration is kept without end."
    )
    end: str | None = Field(default=None, max_length=40, description=MOMENT)
    kind: Kind | None = None
    clear_fields: list[Clearable] = Field(default_factory=list, description="Fields to empty.")
    expected_version: int | None = Field(
        default=None, description="Refuse the change if the version differs."
    )


@tool(
    name="calendar_update_event",
    family=FAMILY,
    read_only=False,
    description="Change some fields of a calendar entry; fields you leave out stay as they are. "
    "Use clear_fields to empty a field.",
)
def update_event(ctx: ToolContext, args: UpdateEventArgs) -> dict:
    changes = {
        k: v
        for k, v in args.model_dump(exclude={"event_id", "clear_fields", "expected_version"}).items()
        if v is not None
    }
    for name in args.clear_fields:
        changes[name] = None if name in ("remind_minutes_before", "attendee_ids", "client_id") else ""
    event = services.update_event(
        ctx.principal, args.event_id, changes, expected_version=args.expected_version
    )
    return {"event": event_record(event)}


@tool(
    name="calendar_delete_event",
    family=FAMILY,
    read_only=False,
    description="Delete a calendar entry for good.",
)
def delete_event(ctx: ToolContext, args: EventIdArgs) -> dict:
    return {"deleted": services.delete_event(ctx.principal, args.event_id)}
