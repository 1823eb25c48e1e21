"""The "Heute" page of the signed-in person: what is due, from live data only.

Every figure is counted when the page renders, through the owning app's read functions (the
Fristen through `apps.calendar.fristen`, the same query as the Fristenkontrolle page, so both
always show the same numbers; tasks on the boards of `apps.tasks.visibility.visible_board_ids`,
documents in `apps.documents.visibility.document_scope_q`). Each list is a bounded page with its
total, and the number of queries does not depend on how many rows there are.

The page is the start page of every person, asked for far more often than any other: each card
reads just the columns it shows (`values_list`, no model instances, no `select_related` of whole
rows), and a card the Fristen summary already counted empty is not asked for at all.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Count, Q, Window
from django.urls import reverse
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import fristen
from apps.calendar import services as calendar
from apps.calendar.fristen import FristenFilter
from apps.calendar.visibility import visible_events
from apps.core.db.prepared import SHAPE, Prepared
from apps.dashboard import office as office_view
from apps.documents.models import Document
from apps.documents.visibility import document_scope_q
from apps.notifications import services as notifications
from apps.tasks.models import Task
from apps.tasks.visibility import visible_board_ids

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
    overdue, week = _due_cards(principal, today, sunday, counts)
    may_see_office = office_view.may_see_office(principal)
    return {
        "today": today,
        "week_end": sunday,
        "counts": counts,
        "appointments": _appointments(principal, today),
        "overdue": {"rows": overdue, "total": counts["overdue"]},
        "week": {"rows": week, "total": counts["this_week"]},
        "pre_deadlines": _pre_deadlines(principal, today, sunday, counts),
        "tasks": _tasks(principal, today),
        "documents": _documents(principal),
        "notifications": _notifications(principal),
        "links": _links(today, sunday),
        "may_see_office": may_see_office,
        "office": office_view.build(principal, today, sunday) if office and may_see_office else None,
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
    day's occurrences (one narrow query), then those entries that are theirs (one query, none on
    a day without any entry)."""
    begin = dt.datetime.combine(today, dt.time(0), tzinfo=principal.time_zone)
    occurrences = calendar.occurrence_rows(principal, begin, begin + dt.timedelta(days=1))
    if not occurrences:
        return []
    me = principal.user.pk
    mine = {
        pk: {"pk": pk, "title": title, "all_day": all_day, "location": location}
        for pk, title, all_day, location in visible_events(principal)
        .filter(pk__in={pk for pk, _, _ in occurrences}, kind="event")
        .filter(Q(owner_id=me) | Q(attendees__id=me))
        .distinct()
        .values_list("pk", "title", "all_day", "location")
    }
    return [{"event": mine[pk], "start": start, "end": end} for pk, start, end in occurrences if pk in mine][
        :APPOINTMENTS_MAX
    ]


@dataclass(slots=True)
class DueRow:
    """One Frist of the overdue or this week's card: what the card shows of it."""

    pk: int
    title: str
    start: dt.datetime
    responsible_id: int | None
    client_name: str | None
    is_overdue: bool
    days: int  # from today to the due day (negative: overdue)
    late: int  # days overdue, 0 when not


DUE_FIELDS = ("pk", "title", "start", "responsible_id", "client__name")


def _due_cards(
    principal: Principal, today: dt.date, sunday: dt.date, counts: dict | None = None
) -> tuple[list[DueRow], list[DueRow]]:
    """The overdue card's and this week's card's first rows, in one query: the person's open
    Fristen due until Sunday, split at today's midnight (where `deadlines_for` starts to call a
    Frist overdue), the first SHOWN of each half in due order (two LIMITed index scans, one
    UNION ALL). With the summary's `counts` (the same filters), a half it counted empty is not
    asked for, and neither is the query when both are."""
    want_overdue = counts is None or bool(counts["overdue"])
    want_week = counts is None or bool(counts["this_week"])
    if not (want_overdue or want_week):
        return [], []
    mine = fristen.deadlines_for(principal, FristenFilter(person_id=principal.user.pk, due_to=sunday))
    midnight = dt.datetime.combine(today, dt.time(0), tzinfo=principal.time_zone)
    halves = []
    if want_overdue:
        halves.append(mine.filter(start__lt=midnight).values_list(*DUE_FIELDS)[:SHOWN])
    if want_week:
        halves.append(mine.filter(start__gte=midnight).values_list(*DUE_FIELDS)[:SHOWN])
    query = halves[0].union(*halves[1:], all=True) if len(halves) > 1 else halves[0]
    overdue: list[DueRow] = []
    week: list[DueRow] = []
    for pk, title, start, responsible_id, client_name in sorted(query, key=lambda row: (row[2], row[0])):
        days = (start.astimezone(principal.time_zone).date() - today).days
        row = DueRow(pk, title, start, responsible_id, client_name, start < midnight, days, max(0, -days))
        (overdue if row.is_overdue else week).append(row)
    return overdue, week


def _pre_deadlines(principal: Principal, today: dt.date, sunday: dt.date, counts: dict | None = None) -> dict:
    """This week's Vorfristen (today … Sunday) of the person's open Fristen, by Vorfrist day: one
    row per Vorfrist, in one query (at most PRE_DEADLINES_MAX); none when the summary's `counts`
    (the same person, open Fristen) found no open Frist at all."""
    if counts is not None and not counts["open"]:
        return {"rows": [], "total": 0, "more": False}
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


# The tasks card (`tasks.visible_tasks`' boards): compiled once per process, number of boards
# and day (`apps.core.db.prepared`).
_DUE_TASKS = Prepared(
    lambda boards, user, until: (
        Task.objects.filter(board_id__in=boards, assignee_id=user, due_date__lte=until)
        .exclude(status__category="done")
        .annotate(card_total=Window(Count("id")))
        .order_by("due_date", "id")
        .values_list("pk", "title", "due_date", "status__name", "client__name", "card_total")[:SHOWN]
    ),
    boards=list,
    user=int,
    until=SHAPE,
)


def _tasks(principal: Principal, today: dt.date) -> dict:
    """The person's unfinished tasks due within a week (overdue ones first): the columns the card
    shows, the card's total riding along (a window over all matches, before the LIMIT)."""
    found = _DUE_TASKS(
        boards=visible_board_ids(principal),
        user=principal.user.pk,
        until=today + dt.timedelta(days=TASKS_DUE_WITHIN_DAYS),
    )
    rows = [
        {
            "pk": pk,
            "title": title,
            "due_date": due_date,
            "days": (due_date - today).days,
            "status_name": status_name,
            "client_name": client_name,
        }
        for pk, title, due_date, status_name, client_name, _total in found
    ]
    return {"rows": rows, "total": found[0][-1] if found else 0}


# The person's visible documents of their clients changed since a minute (compiled once per
# process and minute, `apps.core.db.prepared`).
_RECENT_DOCUMENTS = Prepared(
    lambda user, since: (
        Document.objects.filter(document_scope_q(user))
        .filter(clients__responsible_id=user, updated_at__gte=since)
        .distinct()
        .order_by("-updated_at", "-id")
        .values_list("pk", "title", "updated_at")[: SHOWN + 1]
    ),
    user=int,
    since=SHAPE,
)


def _documents(principal: Principal) -> dict:
    """Documents of the clients the person is responsible for, changed in the last two weeks, with
    the names of all their clients (one more query when there are any, as a prefetch would)."""
    since = timezone.now() - dt.timedelta(days=DOCUMENTS_WITHIN_DAYS)
    found = _RECENT_DOCUMENTS(user=principal.user.pk, since=since.replace(second=0, microsecond=0))
    shown = found[:SHOWN]
    names: dict[int, list[str]] = defaultdict(list)
    if shown:
        links = Document.clients.through.objects.filter(document_id__in=[pk for pk, _, _ in shown])
        # The clients' own order (name, id), as `document.clients.all` lists them.
        for document_id, name in links.order_by("client__name", "client_id").values_list(
            "document_id", "client__name"
        ):
            names[document_id].append(name)
    rows = [
        {"pk": pk, "title": title, "updated_at": updated_at, "client_names": names[pk]}
        for pk, title, updated_at in shown
    ]
    return {"rows": rows, "total": len(rows), "more": len(found) > SHOWN}


def _notifications(principal: Principal) -> dict:
    """The header bell's own data (newest first, unread marked): the page renders both from it."""
    bell = notifications.bell(principal)
    return {"rows": bell["items"], "total": bell["unread"], "bell": bell}
