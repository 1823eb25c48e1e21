"""The Frist's people hear when they are named: Zuständig or Vertretung (see
`apps.notifications.watch`; the services stay as they are, model signals carry the change);
the morning digest counts their Fristen and Vorfristen of the day."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

from apps.calendar.deadline_reminders import due_day, start_window
from apps.calendar.models import CalendarEvent, PreDeadline
from apps.calendar.records import detail_url
from apps.calendar.visibility import user_filter
from apps.notifications.watch import PeopleWatch


def _can_see(event: CalendarEvent, user) -> bool:
    return CalendarEvent.objects.filter(user_filter(user.pk), pk=event.pk).exists()


WATCH = PeopleWatch(
    model="office_calendar.CalendarEvent",
    fields={"responsible": "deadline.responsible", "deputy": "deadline.deputy"},
    url=lambda event: detail_url(event.pk),
    applies=lambda event: event.kind == CalendarEvent.Kind.DEADLINE,
    can_see=_can_see,
)


def digest_counts(today: dt.date) -> dict[int, Counter]:
    """The morning digest's Fristen ending today and Vorfristen of today, per responsible person
    and deputy (open Fristen only; two queries for the whole office)."""
    counts: dict[int, Counter] = defaultdict(Counter)
    fristen = (
        CalendarEvent.objects.filter(kind=CalendarEvent.Kind.DEADLINE, status=CalendarEvent.Status.OPEN)
        .filter(start_window(today, today))
        .only("start", "time_zone", "responsible_id", "deputy_id")
    )
    for event in fristen:
        if due_day(event) == today:
            for person_id in _ids(event.responsible_id, event.deputy_id):
                counts[person_id]["deadlines_today"] += 1
    pre = PreDeadline.objects.filter(
        due_date=today, event__kind=CalendarEvent.Kind.DEADLINE, event__status=CalendarEvent.Status.OPEN
    ).values_list("event__responsible_id", "event__deputy_id")
    for responsible_id, deputy_id in pre:
        for person_id in _ids(responsible_id, deputy_id):
            counts[person_id]["pre_deadlines_today"] += 1
    return counts


def _ids(*ids: int | None) -> set[int]:
    return {i for i in ids if i is not None}
