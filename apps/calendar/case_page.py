"""The case page's calendar sections and the client page's open Fristen per case (extension
points `clients.case_sections` and `clients.case_open_items`, declared in `apps.calendar.apps`):
the case's open Fristen by urgency, with countdown and critical badge, and its upcoming
appointments (series expanded). Each a fixed number of queries, whatever the case has."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.utils import timezone
from django.utils.translation import ngettext

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.records import countdown_days, is_critical_soon
from apps.clients.case_page import OpenItems, Section
from apps.clients.models import Case

UPCOMING_DAYS = 180
UPCOMING_EVENTS = 20
DEADLINES = 50
TOPICS = ("calendar.event",)


def deadlines(principal: Principal, case: Case) -> Section:
    items = []
    for event in services.list_deadlines(principal, case_id=case.pk, limit=DEADLINES):
        days = countdown_days(event)
        items.append(
            {"event": event, "countdown": days, "overdue": -days, "critical": is_critical_soon(event, days)}
        )
    return Section(
        "deadlines",
        "calendar/_case_page_deadlines.html",
        {"deadlines": items},
        order=10,
        live_topics=TOPICS,
    )


def appointments(principal: Principal, case: Case) -> Section:
    now = timezone.now()
    upcoming, total = services.list_events(
        principal,
        start=now,
        end=now + dt.timedelta(days=UPCOMING_DAYS),
        kind="event",
        case_id=case.pk,
        limit=UPCOMING_EVENTS,
    )
    return Section(
        "events",
        "calendar/_case_page_appointments.html",
        {"upcoming": upcoming, "upcoming_total": total, "upcoming_days": UPCOMING_DAYS},
        order=30,
        live_topics=TOPICS,
    )


def _describe(count: int) -> str:
    return ngettext("%(count)d open deadline", "%(count)d open deadlines", count) % {"count": count}


def open_items(principal: Principal, case_ids: Sequence[int]) -> OpenItems:
    return OpenItems(
        "deadlines",
        services.open_deadline_counts(principal, list(case_ids)),
        _describe,
        order=10,
        live_topics=TOPICS,
    )
