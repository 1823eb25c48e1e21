"""The one wire shape of a calendar entry: tools, REST API, pages and live events send this record,
declared once as `apps.calendar.contracts.EventOut` and built from an `EventRow`. Deadline (Frist) and conference fields are always present, so
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

from apps.calendar.contracts import DeadlineChangeOut, EventOut
from apps.calendar.models import CalendarEvent, DeadlineChange
from apps.clients.models import Case
from apps.core.db.versioning import Versioned
from apps.core.records import IdUrl, iso
from apps.core.timezones import in_zone

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


class EventRow:
    """An entry, or one occurrence of a series, as `contracts.EventOut` reads it: the columns of
    the entry, and what depends on the occurrence and the entry's zone. Times go out in the
    entry's own zone (with its offset): what the office reads on a wall clock."""

    def __init__(self, event: CalendarEvent, occurrence: Occurrence | None = None) -> None:
        self.event, self.occurrence = event, occurrence
        self.zone = _tz(event)
        self.begins = in_zone(occurrence.start if occurrence else event.start, self.zone)
        self.ends = in_zone(occurrence.end if occurrence else event.end, self.zone)
        self.countdown_days = countdown_days(event, self.begins) if event.is_deadline else None

    def __getattr__(self, name: str):  # every other field is the entry's column of that name
        return getattr(self.event, name)

    @property
    def id(self) -> int:
        return self.event.pk

    @property
    def start(self) -> str:
        return self.begins.isoformat()

    @property
    def end(self) -> str:
        return self.ends.isoformat()

    @property
    def start_date(self) -> dt.date:
        return in_zone(self.begins, self.zone).date()

    @property
    def end_date(self) -> dt.date:
        return _end_date(self.begins, self.ends, self.event.all_day, self.zone)

    @property
    def attendees(self) -> list:
        return list(self.event.attendees.all())

    @property
    def due(self) -> str | None:
        return self.start if self.event.is_deadline else None

    @property
    def is_critical_soon(self) -> bool:
        days = self.countdown_days
        return is_critical_soon(self.event, days) if days is not None else False

    @property
    def recurring(self) -> bool:
        return self.event.is_recurring

    @property
    def series_start(self) -> str | None:
        if self.occurrence and self.event.is_recurring:
            return in_zone(self.event.start, self.zone).isoformat()
        return None

    @property
    def is_overdue(self) -> bool:
        event = self.event
        return (
            event.is_deadline and event.status == CalendarEvent.Status.OPEN and (self.countdown_days or 0) < 0
        )

    @property
    def pre_deadlines(self) -> list:
        return list(self.event.pre_deadlines.all())

    @property
    def case(self) -> Case | None:
        return self.event.case if self.event.case_id else None

    @property
    def done_at(self) -> str | None:
        return iso(self.event.done_at)

    @property
    def cancelled_at(self) -> str | None:
        return iso(self.event.cancelled_at)

    @property
    def reminded_at(self) -> str | None:
        return iso(self.event.reminded_at)

    @property
    def created_at(self) -> str:
        return self.event.created_at.isoformat()

    @property
    def updated_at(self) -> str:
        return self.event.updated_at.isoformat()

    @property
    def url(self) -> str:
        return detail_url(self.event.pk)


def event_record(event: CalendarEvent, occurrence: Occurrence | None = None) -> dict:
    """The wire record of an entry or occurrence (`contracts.EventOut`)."""
    return EventOut.record(EventRow(event, occurrence))


EVENT_VERSION = Versioned(
    "event", event_record, gettext_lazy("The entry was changed by someone else in the meantime.")
)


def _end_date(start: dt.datetime, end: dt.datetime, all_day: bool, tz: dt.tzinfo) -> dt.date:
    """The last day the entry covers (all-day ends are exclusive midnights)."""
    local_end = in_zone(end, tz)
    if all_day and end > start and local_end.time() == dt.time(0):
        return local_end.date() - dt.timedelta(days=1)
    return local_end.date()


def history_record(change: DeadlineChange) -> dict:
    """One Fristenbuch line (`contracts.DeadlineChangeOut`); `actor` selected with it."""
    return DeadlineChangeOut.record(change)
