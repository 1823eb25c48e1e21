"""The "Heute" page of the signed-in person: what is due, from live data only.

Every figure is counted when the page renders, through the owning app's read functions (the
Fristen through `apps.calendar.fristen`, the same query as the Fristenkontrolle page, so both
always show the same numbers; tasks through `apps.tasks.services.visible_tasks`, documents
through `apps.documents.visibility`). Each list is a bounded page with its total, and the
number of queries does not depend on how many rows there are.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import fristen
from apps.calendar import services as calendar
from apps.calendar.fristen import FristenFilter
from apps.documents.visibility import visible_documents
from apps.notifications import services as notifications
from apps.tasks import services as tasks
from apps.tasks.records import with_relations as task_relations

SHOWN = 8  # rows per card; the card's link opens the full list
TASKS_DUE_WITHIN_DAYS = 7
DOCUMENTS_WITHIN_DAYS = 14
APPOINTMENTS_MAX = 50


def build(principal: Principal) -> dict:
    user = principal.user
    today = fristen.today_for(principal)
    sunday = today + dt.timedelta(days=6 - today.weekday())
    mine = FristenFilter(person_id=user.pk)
    counts = fristen.summary(principal, mine)
    return {
        "today": today,
        "week_end": sunday,
        "counts": counts,
        "appointments": _appointments(principal, today),
        "overdue": _deadlines(
            principal, FristenFilter(person_id=user.pk, due_to=today - dt.timedelta(days=1)), today
        ),
        "week": _deadlines(principal, FristenFilter(person_id=user.pk, due_from=today, due_to=sunday), today),
        "pre_deadlines": _pre_deadlines(principal, today, sunday),
        "tasks": _tasks(principal, today),
        "documents": _documents(principal),
        "notifications": _notifications(principal),
        "links": _links(today, sunday),
    }


def _fristen_url(**params) -> str:
    return f"{reverse('calendar:deadlines')}?{urlencode({'who': 'me', **params})}"


def _links(today: dt.date, sunday: dt.date) -> dict:
    yesterday = today - dt.timedelta(days=1)
    return {
        "overdue": _fristen_url(to=yesterday.isoformat()),
        "week": _fristen_url(**{"from": today.isoformat(), "to": sunday.isoformat()}),
        "open": _fristen_url(),
        "calendar_today": f"{reverse('calendar:agenda')}",
        "tasks": f"{reverse('tasks:board')}",
        "notifications": reverse("notifications:index"),
    }


def _appointments(principal: Principal, today: dt.date) -> list:
    """Today's appointments the person takes part in (owner or attendee), series included."""
    begin = dt.datetime.combine(today, dt.time(0), tzinfo=principal.time_zone)
    rows, _ = calendar.list_events(
        principal, start=begin, end=begin + dt.timedelta(days=1), kind="event", limit=APPOINTMENTS_MAX
    )
    me = principal.user.pk
    return [
        occurrence
        for occurrence in rows
        if occurrence.event.owner_id == me or any(a.pk == me for a in occurrence.event.attendees.all())
    ]


def _deadlines(principal: Principal, filters: FristenFilter, today: dt.date) -> dict:
    qs = fristen.deadlines_for(principal, filters)
    rows = list(
        qs.select_related("client", "responsible", "deputy").prefetch_related("pre_deadlines")[:SHOWN]
    )
    for event in rows:
        event.days = (event.start.astimezone(principal.time_zone).date() - today).days
        event.late = max(0, -event.days)
    return {"rows": rows, "total": qs.count()}


def _pre_deadlines(principal: Principal, today: dt.date, sunday: dt.date) -> dict:
    """This week's Vorfristen (today … Sunday) of the person's open Fristen, by Vorfrist day."""
    open_mine = fristen.deadlines_for(principal, FristenFilter(person_id=principal.user.pk))
    in_week = Q(pre_deadlines__due_date__gte=today, pre_deadlines__due_date__lte=sunday)
    with_one = open_mine.filter(in_week)
    total = open_mine.aggregate(n=Count("pre_deadlines", filter=in_week))["n"]
    events = list(
        with_one.distinct()
        .order_by("start", "id")
        .select_related("client")
        .prefetch_related("pre_deadlines")[:SHOWN]
    )
    rows = [
        {"day": pre.due_date, "event": event, "is_today": pre.due_date == today}
        for event in events
        for pre in event.pre_deadlines.all()
        if today <= pre.due_date <= sunday
    ]
    rows.sort(key=lambda row: (row["day"], row["event"].start, row["event"].pk))
    return {"rows": rows[:SHOWN], "total": total}


def _tasks(principal: Principal, today: dt.date) -> dict:
    """The person's unfinished tasks due within a week (overdue ones first)."""
    qs = (
        tasks.visible_tasks(principal)
        .filter(assignee_id=principal.user.pk, due_date__lte=today + dt.timedelta(days=TASKS_DUE_WITHIN_DAYS))
        .exclude(status__category="done")
    )
    rows = list(task_relations(qs).order_by("due_date", "id")[:SHOWN])
    for task in rows:
        task.days = (task.due_date - today).days
    return {"rows": rows, "total": qs.count()}


def _documents(principal: Principal) -> dict:
    """Documents of the clients the person is responsible for, changed in the last two weeks."""
    since = timezone.now() - dt.timedelta(days=DOCUMENTS_WITHIN_DAYS)
    qs = (
        visible_documents(principal)
        .filter(clients__responsible_id=principal.user.pk, updated_at__gte=since)
        .distinct()
    )
    rows = list(qs.prefetch_related("clients").order_by("-updated_at", "-id")[:SHOWN])
    return {"rows": rows, "total": qs.count()}


def _notifications(principal: Principal) -> dict:
    qs = notifications.for_person(principal, unread_only=True)
    return {"rows": list(qs[:SHOWN]), "total": notifications.unread_count(principal)}
