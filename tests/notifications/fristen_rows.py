"""Fristen rows for the reminder and dashboard tests, written straight to the tables (test data,
like tests/factories.py): only the fields the reminders and the dashboard read."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.conf import settings

from apps.calendar.models import CalendarEvent, PreDeadline

OFFICE = zoneinfo.ZoneInfo(settings.TIME_ZONE)


def frist(
    title: str,
    due: dt.date,
    *,
    responsible=None,
    deputy=None,
    pre: list[dt.date] = (),
    status: str = "open",
    visibility: str = "shared",
    owner=None,
    client=None,
    criticality: str = "normal",
) -> CalendarEvent:
    start = dt.datetime.combine(due, dt.time(0), tzinfo=OFFICE)
    event = CalendarEvent.objects.create(
        kind=CalendarEvent.Kind.DEADLINE,
        title=title,
        start=start,
        end=start + dt.timedelta(days=1) - dt.timedelta(microseconds=1),
        all_day=True,
        time_zone=settings.TIME_ZONE,
        responsible=responsible,
        deputy=deputy,
        status=status,
        visibility=visibility,
        owner=owner,
        client=client,
        criticality=criticality,
        legal_basis="§ 355 AO",
    )
    for day in pre:
        PreDeadline.objects.create(event=event, due_date=day)
    return event


def at(day: dt.date, hour: int = 9) -> dt.datetime:
    """A moment of an office day (the reminder job's `now`)."""
    return dt.datetime.combine(day, dt.time(hour), tzinfo=OFFICE)
