"""Agent tools of the Kalender (family `calendar`, core: never install-gated).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the records. Live UI actions come from the mutation events the
services record. Agents read before they write (list the time range to avoid duplicates) and read
after they write (`calendar_get_event`): the read-back is authoritative.
"""

from __future__ import annotations

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from apps.calendar import contracts as c
from apps.calendar import lifecycle, services
from apps.calendar.errors import DeadlineNotDeletable
from apps.calendar.models import CalendarEvent
from apps.calendar.records import event_record
from apps.core.contracts import page
from apps.core.origin import Origin
from apps.core.surfaces.api import listed
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, staged_tool, tool


@tool(name="calendar_list_events", output=c.EventPage, surfaces=WITH_LIVE, read_only=True)
def list_events(ctx: ToolContext, args: c.EventFilter) -> dict:
    """List calendar entries (appointments and Fristen) in a time window, recurring series expanded into
    their occurrences, sorted by start; returns full records and the total. List the time range before
    creating an entry to avoid duplicates."""
    found = services.list_events(ctx.principal, args)
    return listed("events", lambda o: event_record(o.event, o), found, args)


@tool(name="calendar_get_event", output=c.EventResult, surfaces=WITH_LIVE, read_only=True)
def get_event(ctx: ToolContext, args: c.EventId) -> dict:
    """Get one calendar entry."""
    return {"event": event_record(services.get_event(ctx.principal, args.event_id))}


@tool(name="calendar_create_event", output=c.EventResult, surfaces=WITH_LIVE, read_only=False)
def create_event(ctx: ToolContext, args: c.EventCreate) -> dict:
    """Create an appointment or a Frist (kind=deadline, start = due moment; responsible defaults to you,
    a Vorfrist to the rule's or 7 days before). Read it back with calendar_get_event before reporting
    success."""
    event = services.create_event(ctx.principal, args, origin=Origin.of_tool(ctx))
    return {"event": event_record(event)}


@tool(name="calendar_update_event", output=c.EventResult, surfaces=WITH_LIVE, read_only=False)
def update_event(ctx: ToolContext, args: c.EventUpdateById) -> dict:
    """Change some fields of a calendar entry; fields you leave out stay as they are. Use clear_fields to
    empty a field. Moving a Frist's due date needs a reason (it goes into the Fristenbuch)."""
    event = services.update_event(ctx.principal, args.event_id, args)
    return {"event": event_record(event)}


def _when(event: CalendarEvent, ctx: ToolContext) -> str:
    return formats.date_format(timezone.localtime(event.start, ctx.principal.time_zone), "SHORT_DATE_FORMAT")


def _delete_preview(args: c.EventId, ctx: ToolContext) -> str:
    event = services.get_event(ctx.principal, args.event_id)
    if event.is_deadline:  # refused before anyone is asked: a Frist is only ever cancelled
        raise DeadlineNotDeletable(
            _("A Frist is never deleted: cancel it with a reason, so the Fristenbuch keeps it.")
        )
    return _("Deletes the appointment “%(title)s” on %(date)s.") % {
        "title": event.title,
        "date": _when(event, ctx),
    }


def _cancel_preview(args: c.DeadlineCancelById, ctx: ToolContext) -> str:
    event = services.get_event(ctx.principal, args.event_id)
    return _("Cancels the Frist “%(title)s” due %(date)s (reason: %(reason)s).") % {
        "title": event.title,
        "date": _when(event, ctx),
        "reason": args.reason,
    }


@staged_tool(name="calendar_delete_event", operation="delete", output=c.EventDeleted, preview=_delete_preview)
def delete_event(ctx: ToolContext, args: c.EventId) -> dict:
    """Delete an appointment for good. Fristen are never deleted (deadline_not_deletable): cancel them with
    calendar_cancel_deadline."""
    return {"deleted": services.delete_event(ctx.principal, args.event_id)}


@tool(name="calendar_list_deadlines", output=c.DeadlinePage, surfaces=WITH_LIVE, read_only=True)
def list_deadlines(ctx: ToolContext, args: c.DeadlineFilter) -> dict:
    """The Fristenkontrolle: Fristen by responsible person, deputy, status (default open), due period,
    client, case and criticality; overdue first, then by due date; full records (responsible, deputy,
    Vorfristen, status) and the total."""
    records, total = services.deadline_page(
        ctx.principal, args.filters(), limit=args.limit, offset=args.offset
    )
    return page("deadlines", records, total, limit=args.limit, offset=args.offset)


@tool(name="calendar_complete_deadline", output=c.EventResult, surfaces=WITH_LIVE, read_only=False)
def complete_deadline(ctx: ToolContext, args: c.DeadlineCompleteById) -> dict:
    """Mark an open Frist done: say how it was met (e.g. "Einspruch eingelegt"), optionally with a link to
    the document or task that met it. Refused with deadline_not_open when it is already done or
    cancelled."""
    return {"event": event_record(lifecycle.complete_deadline(ctx.principal, args.event_id, args))}


@tool(name="calendar_reopen_deadline", output=c.EventResult, surfaces=WITH_LIVE, read_only=False)
def reopen_deadline(ctx: ToolContext, args: c.DeadlineReopenById) -> dict:
    """Open a done or cancelled Frist again, with the reason (required; it goes into the Fristenbuch).
    Refused with deadline_not_closed when it is open, deadline_reason_required without a reason."""
    return {"event": event_record(lifecycle.reopen_deadline(ctx.principal, args.event_id, args))}


@staged_tool(
    name="calendar_cancel_deadline", operation="cancel", output=c.EventResult, preview=_cancel_preview
)
def cancel_deadline(ctx: ToolContext, args: c.DeadlineCancelById) -> dict:
    """Cancel (strike) an open Frist that no longer applies, with the reason. Fristen are never deleted; the
    Fristenbuch keeps them."""
    return {"event": event_record(lifecycle.cancel_deadline(ctx.principal, args.event_id, args))}
