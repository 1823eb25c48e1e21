"""Agent tools of the Kalender (family `calendar`, core: never install-gated).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the records. Live UI actions come from the mutation events the
services record. Agents read before they write (list the time range to avoid duplicates) and read
after they write (`calendar_get_event`): the read-back is authoritative.
"""

from __future__ import annotations

from apps.calendar import contracts as c
from apps.calendar import services
from apps.calendar.models import CalendarEvent
from apps.calendar.records import event_record
from apps.core.contracts import page
from apps.tools.context import ToolContext
from apps.tools.registry import tool


def _origin(ctx: ToolContext) -> str:
    return CalendarEvent.Source.API if ctx.surface == "api" else CalendarEvent.Source.AGENT


@tool(name="calendar_list_events", read_only=True)
def list_events(ctx: ToolContext, args: c.EventFilter) -> dict:
    """List calendar entries (appointments and Fristen) in a time window, recurring series expanded into
    their occurrences, sorted by start; returns full records and the total. List the time range before
    creating an entry to avoid duplicates."""
    found, total = services.list_events(ctx.principal, **args.model_dump())
    records = [event_record(o.event, o) for o in found]
    return page("events", records, total, limit=args.limit, offset=args.offset)


@tool(name="calendar_get_event", read_only=True)
def get_event(ctx: ToolContext, args: c.EventId) -> dict:
    """Get one calendar entry."""
    return {"event": event_record(services.get_event(ctx.principal, args.event_id))}


@tool(name="calendar_create_event", read_only=False)
def create_event(ctx: ToolContext, args: c.EventCreate) -> dict:
    """Create an appointment or a Frist (kind=deadline, start = due moment). Read it back with
    calendar_get_event before reporting success."""
    event = services.create_event(ctx.principal, **args.service_kwargs(), source_origin=_origin(ctx))
    return {"event": event_record(event)}


@tool(name="calendar_update_event", read_only=False)
def update_event(ctx: ToolContext, args: c.EventUpdateById) -> dict:
    """Change some fields of a calendar entry; fields you leave out stay as they are. Use clear_fields to
    empty a field."""
    event = services.update_event(
        ctx.principal, args.event_id, args.changes(), expected_version=args.expected_version
    )
    return {"event": event_record(event)}


@tool(name="calendar_delete_event", read_only=False)
def delete_event(ctx: ToolContext, args: c.EventId) -> dict:
    """Delete a calendar entry for good."""
    return {"deleted": services.delete_event(ctx.principal, args.event_id)}
