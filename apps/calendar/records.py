"""The one wire shape of a calendar entry: tools, REST API, pages and live events send this record
(declared as `apps.calendar.contracts.EventOut`; a plain dict builder, because lists and live
events serialize hundreds of them). Deadline (Frist) and conference fields are always present, so
an open calendar can render a countdown, a critical badge or a meeting link from a live event
without a reload."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy

from apps.accounts.contracts import person_ref
from apps.calendar.models import CalendarEvent
from apps.clients.records import client_ref
from apps.core.records import IdUrl, attrs, iso, stamps
from apps.core.timezones import in_zone
from apps.core.versioning import Versioned

# Days before the due date from which a Frist counts as "critical soon", by criticality.
CRITICAL_SOON_DAYS = {"critical": 14, "high": 7, "normal": 3, "low": 1}


@dataclass(frozen=True)
class Occurrence:
    """One appearance of an entry in a window (a series appears once per occurrence)."""

    event: CalendarEvent
    start: dt.datetime
    end: dt.datetime


def with_relations(qs: QuerySet[CalendarEvent]) -> QuerySet[CalendarEvent]:
    """Everything `event_record` reads, in two queries whatever the number of entries."""
    people = get_user_model().objects.only("id", "full_name", "email").order_by("full_name", "id")
    return qs.select_related(
        "owner", "created_by", "created_by_service", "client", "case",
        "responsible", "deputy", "done_by", "cancelled_by",
    ).prefetch_related(Prefetch("attendees", queryset=people), "pre_deadlines")  # fmt: skip


detail_url = IdUrl("calendar:detail")


def _tz(event: CalendarEvent) -> dt.tzinfo:
    try:
        return zoneinfo.ZoneInfo(event.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return dt.UTC


def countdown_days(
    event: CalendarEvent, start: dt.datetime | None = None, today: dt.date | None = None
) -> int:
    """Whole days from today until the due date, in the entry's time zone (negative: overdue)."""
    tz = _tz(event)
    today = today or timezone.now().astimezone(tz).date()
    return (in_zone(start or event.start, tz).date() - today).days


def is_critical_soon(event: CalendarEvent, days: int) -> bool:
    return event.is_deadline and days <= CRITICAL_SOON_DAYS.get(event.criticality, 3)


def event_record(event: CalendarEvent, occurrence: Occurrence | None = None) -> dict:
    # Times go out in the entry's own zone (with its offset): what the office reads on a wall clock.
    local = _tz(event)
    start = in_zone(occurrence.start if occurrence else event.start, local)
    end = in_zone(occurrence.end if occurrence else event.end, local)
    deadline = event.is_deadline
    days = countdown_days(event, start) if deadline else None
    record = {
        "id": event.pk,
        **attrs(event, "kind", "title", "description"),
        "start": start.isoformat(),
        "end": end.isoformat(),
        "all_day": event.all_day,
        "start_date": in_zone(start, local).date().isoformat(),
        "end_date": _end_date(start, end, event.all_day, local).isoformat(),
        **attrs(event, "time_zone", "location", "visibility"),
        "owner": person_ref(event.owner),
        "attendees": [person_ref(u) for u in event.attendees.all()],
        "created_by": person_ref(event.created_by),
        "created_by_service": event.created_by_service.name if event.created_by_service else None,
        **attrs(event, "conference_url", "conference_provider", "source_origin", "source_label", "client_id"),
        "client": client_ref(event.client),
        "due": start.isoformat() if deadline else None,
        **attrs(event, "legal_basis", "criticality"),
        "countdown_days": days,
        "is_critical_soon": is_critical_soon(event, days) if deadline else False,
        "rrule": event.rrule,
        "recurring": event.is_recurring,
        "series_start": in_zone(event.start, local).isoformat()
        if occurrence and event.is_recurring
        else None,
        **deadline_fields(event, days),
        "remind_minutes_before": event.remind_minutes_before,
        "reminded_at": iso(event.reminded_at),
        **stamps(event),
        "url": detail_url(event.pk),
    }
    return record


EVENT_VERSION = Versioned(
    "event", event_record, gettext_lazy("The entry was changed by someone else in the meantime.")
)


def deadline_fields(event: CalendarEvent, days: int | None) -> dict:
    """The Fristenkontrolle's part of the record (always present, empty for appointments)."""
    return {
        "status": event.status,
        "is_overdue": event.is_deadline and event.status == CalendarEvent.Status.OPEN and (days or 0) < 0,
        "responsible": person_ref(event.responsible),
        "deputy": person_ref(event.deputy),
        "pre_deadlines": [
            {"id": p.pk, "due_date": p.due_date.isoformat(), "note": p.note}
            for p in event.pre_deadlines.all()
        ],
        "done_at": iso(event.done_at),
        "done_by": person_ref(event.done_by),
        **attrs(event, "done_how", "done_link"),
        "cancelled_at": iso(event.cancelled_at),
        "cancelled_by": person_ref(event.cancelled_by),
        "cancel_reason": event.cancel_reason,
        "case_id": event.case_id,
        "case": {"id": event.case.pk, "reference": event.case.reference, "subject": event.case.subject}
        if event.case_id
        else None,
        "trigger_date": iso(event.trigger_date),
        "rule_code": event.rule_code,
    }


def _end_date(start: dt.datetime, end: dt.datetime, all_day: bool, tz: dt.tzinfo) -> dt.date:
    """The last day the entry covers (all-day ends are exclusive midnights)."""
    local_end = in_zone(end, tz)
    if all_day and end > start and local_end.time() == dt.time(0):
        return local_end.date() - dt.timedelta(days=1)
    return local_end.date()


def history_record(change) -> dict:
    """One Fristenbuch line (`contracts.DeadlineChangeOut`); `actor` selected with it."""
    return {
        "id": change.pk,
        "event_id": change.event_id,
        "at": change.at.isoformat(),
        "actor": person_ref(change.actor),
        "actor_label": change.actor_label,
        "field": change.field,
        "old": change.old,
        "new": change.new,
        "reason": change.reason_shown,
        "reason_code": change.reason_code or None,
    }
