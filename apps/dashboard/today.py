"""The "Heute" page of the signed-in person: what is due, from live data only.

Every figure is counted when the page renders, through the owning app's read functions (the
Fristen through `apps.calendar.fristen`, the same query as the Fristenkontrolle page, so both
always show the same numbers; tasks through `apps.tasks.services.visible_tasks`, documents
through `apps.documents.visibility`). Each list is a bounded page with its total, and the
number of queries does not depend on how many rows there are.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber
from django.urls import reverse
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import fristen
from apps.calendar import services as calendar
from apps.calendar.fristen import FristenFilter
from apps.calendar.visibility import visible_events
from apps.dashboard import office as office_view
from apps.documents.visibility import visible_documents
from apps.notifications import services as notifications
from apps.tasks import services as tasks
from apps.tasks.records import with_relations as task_relations

SHOWN = 8  # rows per card; the card's link opens the full list
TASKS_DUE_WITHIN_DAYS = 7
DOCUMENTS_WITHIN_DAYS = 14
APPOINTMENTS_MAX = 50
PRE_DEADLINES_MAX = 50


def build(principal: Principal, *, office: bool = False) -> dict:
    """The person's day; with `office` (asked for, and allowed by `office.may_see_office`) also
    the whole office's cards. Asking without the right silently yields the personal view."""
    user = principal.user
    today = fristen.today_for(principal)
    sunday = today + dt.timedelta(days=6 - today.weekday())
    # The totals of the overdue and this-week cards are the summary's (the same filters), so
    # each card's number and the figure above it can never disagree.
    counts = fristen.summary(principal, FristenFilter(person_id=user.pk))
    overdue, week = _due_cards(principal, today, sunday)
    return {
        "today": today,
        "week_end": sunday,
        "counts": counts,
        "appointments": _appointments(principal, today),
        "overdue": {"rows": overdue, "total": counts["overdue"]},
        "week": {"rows": week, "total": counts["this_week"]},
        "pre_deadlines": _pre_deadlines(principal, today, sunday),
        "tasks": _tasks(principal, today),
        "documents": _documents(principal),
        "notifications": _notifications(principal),
        "links": _links(today, sunday),
        "may_see_office": office_view.may_see_office(principal),
        "office": office_view.build(principal, today, sunday)
        if office and office_view.may_see_office(principal)
        else None,
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


def _appointments(principal: Principal, today: dt.date) -> list[dict]:
    """Today's appointments the person takes part in (owner or attendee), series included: the
    day's occurrences (one narrow query), then those entries that are theirs (one query)."""
    begin = dt.datetime.combine(today, dt.time(0), tzinfo=principal.time_zone)
    occurrences = calendar.occurrence_rows(principal, begin, begin + dt.timedelta(days=1))
    me = principal.user.pk
    mine = {
        event.pk: event
        for event in visible_events(principal)
        .filter(pk__in={pk for pk, _, _ in occurrences}, kind="event")
        .filter(Q(owner_id=me) | Q(attendees__id=me))
        .distinct()
    }
    return [{"event": mine[pk], "start": start, "end": end} for pk, start, end in occurrences if pk in mine][
        :APPOINTMENTS_MAX
    ]


def _due_cards(principal: Principal, today: dt.date, sunday: dt.date) -> tuple[list, list]:
    """The overdue card's and this week's card's first rows, in one query: the person's open
    Fristen due until Sunday (the overdue ones are those before today), numbered by due order
    within each card, the first SHOWN of each."""
    mine = fristen.deadlines_for(principal, FristenFilter(person_id=principal.user.pk, due_to=sunday))
    numbered = mine.annotate(
        card_rank=Window(
            RowNumber(), partition_by=[F("is_overdue")], order_by=[F("start").asc(), F("id").asc()]
        )
    )
    overdue: list[Any] = []
    week: list[Any] = []
    rows: Iterable[Any] = (
        numbered.filter(card_rank__lte=SHOWN).select_related("client").order_by("start", "id")
    )
    for event in rows:  # a CalendarEvent with is_overdue, given its days (and days late) here
        event.days = (event.start.astimezone(principal.time_zone).date() - today).days
        event.late = max(0, -event.days)
        (overdue if event.is_overdue else week).append(event)
    return overdue, week


def _pre_deadlines(principal: Principal, today: dt.date, sunday: dt.date) -> dict:
    """This week's Vorfristen (today … Sunday) of the person's open Fristen, by Vorfrist day: one
    row per Vorfrist, in one query (at most PRE_DEADLINES_MAX)."""
    rows = list(
        fristen.deadlines_for(principal, FristenFilter(person_id=principal.user.pk))
        .filter(pre_deadlines__due_date__gte=today, pre_deadlines__due_date__lte=sunday)
        .order_by("pre_deadlines__due_date", "start", "id")
        .values_list("id", "title", "start", "pre_deadlines__due_date")[:PRE_DEADLINES_MAX]
    )
    shown = [
        {"event": {"pk": pk, "title": title, "start": start}, "day": day, "is_today": day == today}
        for pk, title, start, day in rows[:SHOWN]
    ]
    return {"rows": shown, "total": len(rows), "more": len(rows) == PRE_DEADLINES_MAX}


def _tasks(principal: Principal, today: dt.date) -> dict:
    """The person's unfinished tasks due within a week (overdue ones first)."""
    qs = (
        tasks.visible_tasks(principal)
        .filter(assignee_id=principal.user.pk, due_date__lte=today + dt.timedelta(days=TASKS_DUE_WITHIN_DAYS))
        .exclude(status__category="done")
    )
    # The card's total rides along with its rows (a window over all matches, before the LIMIT).
    counted = qs.annotate(card_total=Window(Count("id")))
    rows = list(task_relations(counted).order_by("due_date", "id")[:SHOWN])
    for task in rows:
        task.days = (task.due_date - today).days
    return {"rows": rows, "total": rows[0].card_total if rows else 0}  # type: ignore[attr-defined]


def _documents(principal: Principal) -> dict:
    """Documents of the clients the person is responsible for, changed in the last two weeks."""
    since = timezone.now() - dt.timedelta(days=DOCUMENTS_WITHIN_DAYS)
    qs = (
        visible_documents(principal)
        .filter(clients__responsible_id=principal.user.pk, updated_at__gte=since)
        .distinct()
        .order_by("-updated_at", "-id")
        .prefetch_related("clients")
    )
    rows = list(qs[: SHOWN + 1])
    return {"rows": rows[:SHOWN], "total": len(rows[:SHOWN]), "more": len(rows) > SHOWN}


def _notifications(principal: Principal) -> dict:
    """The header bell's own data (newest first, unread marked): the page renders both from it."""
    bell = notifications.bell(principal)
    return {"rows": bell["items"], "total": bell["unread"], "bell": bell}
