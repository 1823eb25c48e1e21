"""The office view of "Heute" (the Büroleitung's "Ganze Kanzlei"): the whole office's open
Fristen, team members' overdue Fristen and tasks, Fristen without an active responsible person
and this week's Vertretungen. Only admins (role) and holders of `dashboard.view_office_day` get
it (`may_see_office`); everyone else asking for it gets the personal view. Every list is a bounded
page with its total, read through the owning apps' visibility functions, in a fixed number of
queries."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

from django.urls import reverse

from apps.accounts.principal import Principal
from apps.calendar import fristen
from apps.calendar.fristen import FristenFilter
from apps.tasks import services as tasks
from apps.tasks.records import with_relations as task_relations

SHOWN = 8
PERMISSION = "dashboard.view_office_day"


def may_see_office(principal: Principal) -> bool:
    user = principal.user
    if user is None or not user.is_active:
        return False
    return bool(user.is_admin or user.has_perm(PERMISSION))


def _page(qs) -> dict:
    rows = list(qs[: SHOWN + 1])
    return {"rows": rows[:SHOWN], "more": len(rows) > SHOWN}


def build(principal: Principal, today: dt.date, sunday: dt.date) -> dict:
    yesterday = today - dt.timedelta(days=1)
    counts = fristen.summary(principal, FristenFilter())
    overdue = fristen.deadlines_for(principal, FristenFilter(due_to=yesterday)).select_related(
        "client", "responsible"
    )
    orphaned_qs = fristen.deadlines_for(principal, FristenFilter(orphaned=True)).select_related(
        "client", "responsible"
    )
    deputies = (
        fristen.deadlines_for(principal, FristenFilter(due_from=today, due_to=sunday))
        .filter(deputy__isnull=False)
        .select_related("responsible", "deputy")
    )
    late_tasks = (
        tasks.visible_tasks(principal)
        .filter(due_date__lt=today, assignee__isnull=False)
        .exclude(status__category="done")
    )
    return {
        "counts": counts,
        "overdue": {**_page(overdue), "total": counts["overdue"]},
        "orphaned": {**_page(orphaned_qs), "total": orphaned_qs.count()},
        "deputies": {**_page(deputies), "total": deputies.count()},
        "tasks": {
            **_page(task_relations(late_tasks).order_by("due_date", "id")),
            "total": late_tasks.count(),
        },
        "links": _links(yesterday, today, sunday),
    }


def _fristen_url(**params) -> str:
    return f"{reverse('calendar:deadlines')}?{urlencode(params)}" if params else reverse("calendar:deadlines")


def _links(yesterday: dt.date, today: dt.date, sunday: dt.date) -> dict:
    return {
        "overdue": _fristen_url(to=yesterday.isoformat()),
        "week": _fristen_url(**{"from": today.isoformat(), "to": sunday.isoformat()}),
        "open": _fristen_url(),
        "orphaned": _fristen_url(orphaned=1),
        "tasks": reverse("tasks:list"),
    }
