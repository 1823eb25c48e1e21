"""The calendar's sections of the hub pages: the client page (extension point
`clients.page_sections`) here, the case page in `case_page` (declared in `apps.calendar.apps`).
Each shows the hub's Fristen by urgency, with countdown and critical badge, and its upcoming
appointments (series expanded), at a fixed number of queries whatever the hub has."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.contracts import EventFilter
from apps.calendar.records import countdown_days, is_critical_soon
from apps.clients.models import Client
from apps.clients.page import Section
from apps.core.inputs import build

UPCOMING_DAYS = 180
UPCOMING_EVENTS = 20
DEADLINES = 50
TOPICS = ("calendar.event",)


def deadlines_section(principal: Principal, template: str, **hub: int) -> Section:
    """The open Fristen of one hub (`client_id=` or `case_id=`)."""
    items = []
    for event in services.list_deadlines(principal, limit=DEADLINES, **hub):
        days = countdown_days(event)
        items.append(
            {"event": event, "countdown": days, "overdue": -days, "critical": is_critical_soon(event, days)}
        )
    return Section("deadlines", template, {"deadlines": items}, order=10, live_topics=TOPICS)


def appointments_section(principal: Principal, template: str, **hub: int) -> Section:
    """The hub's appointments of the next UPCOMING_DAYS."""
    now = timezone.now()
    upcoming, total = services.list_events(
        principal,
        build(
            EventFilter,
            start=now.isoformat(),
            end=(now + dt.timedelta(days=UPCOMING_DAYS)).isoformat(),
            kind="event",
            limit=UPCOMING_EVENTS,
            **hub,
        ),
    )
    context = {"upcoming": upcoming, "upcoming_total": total, "upcoming_days": UPCOMING_DAYS}
    return Section("events", template, context, order=30, live_topics=TOPICS)


def deadlines(principal: Principal, client: Client) -> Section:
    return deadlines_section(principal, "calendar/_client_page_deadlines.html", client_id=client.pk)


def appointments(principal: Principal, client: Client) -> Section:
    return appointments_section(principal, "calendar/_client_page_appointments.html", client_id=client.pk)
