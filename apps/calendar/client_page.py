"""The client page's calendar sections (extension point `clients.page_sections`, declared in
`apps.calendar.apps`): the client's Fristen by urgency, with countdown and critical badge, and its
upcoming appointments (series expanded). Each a fixed number of queries, whatever the client has."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.records import countdown_days, is_critical_soon
from apps.clients.models import Client
from apps.clients.page import Section

UPCOMING_DAYS = 180
UPCOMING_EVENTS = 20
DEADLINES = 50
TOPICS = ("calendar.event",)


def deadlines(principal: Principal, client: Client) -> Section:
    items = []
    for event in services.list_deadlines(principal, client_id=client.pk, limit=DEADLINES):
        days = countdown_days(event)
        items.append(
            {"event": event, "countdown": days, "overdue": -days, "critical": is_critical_soon(event, days)}
        )
    return Section(
        "deadlines",
        "calendar/_client_page_deadlines.html",
        {"deadlines": items},
        order=10,
        live_topics=TOPICS,
    )


def appointments(principal: Principal, client: Client) -> Section:
    now = timezone.now()
    upcoming, total = services.list_events(
        principal,
        start=now,
        end=now + dt.timedelta(days=UPCOMING_DAYS),
        kind="event",
        client_id=client.pk,
        limit=UPCOMING_EVENTS,
    )
    return Section(
        "events",
        "calendar/_client_page_appointments.html",
        {"upcoming": upcoming, "upcoming_total": total, "upcoming_days": UPCOMING_DAYS},
        order=30,
        live_topics=TOPICS,
    )
