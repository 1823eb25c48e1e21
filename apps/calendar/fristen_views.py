"""The Fristenkontrolle page: Fristen filtered by person, status, period, client, case and
criticality (overdue first), today's Vorfristen, done / cancel inline, each Frist's Fristenbuch,
and the Fristenbuch export. Reads through `apps.calendar.fristen` (the dashboard counts with the
same function), writes through `apps.calendar.lifecycle`."""

from __future__ import annotations

import copy
import datetime as dt
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Case, Exists, OuterRef, Q, QuerySet, Value, When
from django.http import QueryDict
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST
from pydantic import BaseModel

from apps.calendar import fristen, fristenbuch, lifecycle, services
from apps.calendar.contracts import (
    DeadlineCancel,
    DeadlineComplete,
    DeadlineReopen,
    FristenbuchExportQuery,
    FristenPageQuery,
)
from apps.calendar.models import CalendarEvent
from apps.calendar.records import countdown_days, is_critical_soon, with_relations
from apps.clients import visibility as client_visibility
from apps.core import validation
from apps.core.errors import DateOutOfRange, DomainError
from apps.core.surfaces import web
from apps.core.timezones import in_zone

PAGE_SIZE = 50
STATUS_ALL = "all"


def filters_from(request, params: FristenPageQuery) -> tuple[fristen.FristenFilter, dict]:
    """The page's validated query → the filter and the values the form shows again (a bad value
    was dropped by `web.query` with a message: a page never fails on a hand-edited link)."""
    user = request.principal.user
    who = params.who or ""
    orphaned = params.orphaned and bool(user and user.is_admin)
    due_to = params.to_day
    if params.from_day and due_to and due_to < params.from_day:
        due_to = None
    filters = fristen.FristenFilter(
        person_id=user.pk if who == "me" and user else None,
        responsible_id=int(who) if who.isdigit() else None,
        status=None if params.status == STATUS_ALL else params.status,
        due_from=params.from_day,
        due_to=due_to,
        client_id=params.client,
        case_id=params.case,
        criticality=str(params.criticality) if params.criticality else None,
        orphaned=orphaned,
        query=params.q,
    )
    shown = {
        "who": who,
        "status": params.status,
        "from": filters.due_from.isoformat() if filters.due_from else "",
        "to": filters.due_to.isoformat() if filters.due_to else "",
        "client": str(filters.client_id or ""),
        "case": str(filters.case_id or ""),
        "criticality": filters.criticality or "",
        "orphaned": orphaned,
        "q": filters.query or "",
    }
    return filters, shown


class _Urls:
    """reverse() once per request, then fill in ids: a page has five links per row."""

    def __init__(self) -> None:
        self.patterns = {
            name: reverse(f"calendar:{name}", args=[987654321])
            for name in (
                "detail",
                "deadline-complete",
                "deadline-cancel",
                "deadline-reopen",
                "deadline-history",
            )
        }
        self.client = reverse("clients:detail", args=[987654321])

    def of(self, name: str, pk: int) -> str:
        return self.patterns[name].replace("987654321", str(pk))


def _weekday_date(moment: dt.datetime, with_time: bool) -> str:
    return date_format(moment, "D d.m.Y H:i" if with_time else "D d.m.Y")


def _countdown(event: CalendarEvent, days: int) -> str:
    if event.status != CalendarEvent.Status.OPEN:
        return "—"
    if days < 0:
        return ngettext("overdue by %(counter)s day", "overdue by %(counter)s days", -days) % {
            "counter": -days
        }
    if days == 0:
        return _("today")
    return ngettext("in %(counter)s day", "in %(counter)s days", days) % {"counter": days}


def _row(event: CalendarEvent, today: dt.date, urls: _Urls, tz) -> dict:
    """What one table row renders, prepared here: a page of 50 Fristen with inline forms costs
    far less in Python than in template tags."""
    days = countdown_days(event, today=today)
    is_open = event.status == CalendarEvent.Status.OPEN
    critical = is_open and is_critical_soon(event, days)
    local = in_zone(event.start, tz)
    classes = " ".join(
        c for c in ("is-critical" if critical else "", "overdue" if event.is_overdue else "") if c
    )
    pre = [(p.due_date.strftime("%d.%m."), p.due_date == today) for p in event.pre_deadlines.all()]
    responsible, deputy = event.responsible, event.deputy
    note = ""
    if event.status == CalendarEvent.Status.DONE:
        who = event.done_by.get_full_name() if event.done_by else "—"
        when = event.done_at.astimezone(tz).strftime("%d.%m.%Y") if event.done_at else ""
        note = f"{when} · {who} · {event.done_how}"
    elif event.status == CalendarEvent.Status.CANCELLED:
        note = event.cancel_reason
    return {
        "pk": event.pk,
        "classes": f"{classes} status-{event.status}".strip(),
        "due": _weekday_date(local, not event.all_day and local.time() != dt.time(0)),
        "pre_deadlines": pre,
        "vorfrist_today": any(flag for _day, flag in pre),
        "countdown": _countdown(event, days),
        "overdue": event.is_overdue,
        "critical": critical,
        "title": event.title,
        "legal_basis": event.legal_basis,
        "url": urls.of("detail", event.pk),
        "client": event.client.name if event.client_id else "",
        "client_url": urls.client.replace("987654321", str(event.client_id)) if event.client_id else "",
        "case": event.case.reference if event.case_id else "",
        "responsible": responsible.get_full_name() if responsible else "",
        "responsible_gone": responsible is None or not responsible.is_active,
        "deputy": deputy.get_full_name() if deputy else "",
        "criticality": event.get_criticality_display(),
        "status": event.get_status_display(),
        "note": note,
        "done_link": event.done_link if validation.is_safe_url(event.done_link) else "",
        "is_open": is_open,
        "complete_url": urls.of("deadline-complete", event.pk),
        "cancel_url": urls.of("deadline-cancel", event.pk),
        "reopen_url": urls.of("deadline-reopen", event.pk),
        "history_url": urls.of("deadline-history", event.pk),
    }


def _options(choices, selected: str) -> list[tuple[str, str, bool]]:
    return [(str(value), label, str(value) == selected) for value, label in choices]


def case_choices(principal):
    """The event editor's case picker (apps.calendar.views)."""
    return (
        client_visibility.visible_cases(principal)
        .filter(status="open")
        .order_by("reference")
        .values_list("id", "reference", "subject")[:500]
    )


# At most this many clients and cases in the filter pickers (an office has thousands of clients):
# those with Fristen, by name, the chosen one always; the search field finds every other by name.
FILTER_CHOICES = 100


def _with_deadlines(link: str) -> Exists:
    return Exists(CalendarEvent.objects.filter(kind="deadline", **{link: OuterRef("pk")}))


def _bounded(rows: QuerySet, selected: int | None, *order: str) -> tuple[list, bool]:
    """The first FILTER_CHOICES of `rows` in `order`, the selected one always among them, and
    whether there were more (one query)."""
    first = Case(When(pk=selected or 0, then=Value(0)), default=Value(1))
    found = list(rows.order_by(first, *order)[: FILTER_CHOICES + 1])
    return found[:FILTER_CHOICES], len(found) > FILTER_CHOICES


def client_filter_choices(principal, selected: int | None) -> tuple[list[tuple[int, str]], bool]:
    """(id, "Name (number)") of the visible clients that have Fristen (the others can never
    match), and whether there were more than the picker shows."""
    rows = (
        client_visibility.visible_clients(principal)
        .filter(_with_deadlines("client_id") | Q(pk=selected or 0))
        .values_list("id", "name", "client_number")
    )
    found, more = _bounded(rows, selected, "name", "id")
    return sorted(((pk, f"{name} ({number})") for pk, name, number in found), key=_by_label), more


def case_filter_choices(
    principal, client_id: int | None, selected: int | None
) -> tuple[list[tuple[int, str]], bool]:
    """(id, "reference subject") of the visible open cases with Fristen (of the chosen client,
    when one is), and whether there were more than the picker shows."""
    rows = client_visibility.visible_cases(principal).filter(
        (Q(status="open") & _with_deadlines("case_id")) | Q(pk=selected or 0)
    )
    if client_id is not None:
        rows = rows.filter(Q(client_id=client_id) | Q(pk=selected or 0))
    found, more = _bounded(rows.values_list("id", "reference", "subject"), selected, "reference", "id")
    return sorted(((pk, f"{ref} {subject}") for pk, ref, subject in found), key=_by_label), more


def _by_label(choice: tuple[int, str]) -> tuple[str, int]:
    return choice[1].casefold(), choice[0]


def page_context(request) -> dict:
    """The page for `request`'s query string (an inline action passes `_as_page(request)`)."""
    principal = request.principal
    filters, shown = filters_from(request, web.query(request, FristenPageQuery))
    today = fristen.today_for(principal)
    qs = fristen.deadlines_for(principal, filters)
    paginator = Paginator(range(qs.count()), PAGE_SIZE)
    page = paginator.get_page(web.page_number(request))
    offset = (page.number - 1) * PAGE_SIZE
    events = list(with_relations(qs)[offset : offset + PAGE_SIZE]) if paginator.count else []
    urls = _Urls()
    user = principal.user
    is_admin = bool(user and user.is_admin)
    return {
        "view": "deadlines",
        "query": shown["q"],
        "filters": shown,
        "rows": [_row(e, today, urls, principal.time_zone) for e in events],
        "csrf_input": format_html(
            '<input type="hidden" name="csrfmiddlewaretoken" value="{}">', get_token(request)
        ),
        "total": paginator.count,
        "page": page,
        "querystring": web.querystring_without_page(request),
        "page_url": f"{reverse('calendar:deadlines')}?{request.META.get('QUERY_STRING', '')}",
        "vorfristen_today": list(fristen.pre_deadlines_today(principal, filters, today)),
        "orphaned_count": fristen.deadlines_for(principal, fristen.FristenFilter(orphaned=True)).count()
        if is_admin
        else 0,
        "is_admin": is_admin,
        "people": _options(
            ((u.pk, u.get_full_name()) for u in get_user_model().objects.filter(is_active=True)), shown["who"]
        ),
        **_pickers(principal, filters, shown),
        "statuses": CalendarEvent.Status.choices,
        "criticalities": CalendarEvent.Criticality.choices,
        "today": today,
        "export_since": (today - dt.timedelta(days=30)).isoformat(),
        "export_until": today.isoformat(),
    }


def _pickers(principal, filters: fristen.FristenFilter, shown: dict) -> dict:
    clients, more_clients = client_filter_choices(principal, filters.client_id)
    cases, more_cases = case_filter_choices(principal, filters.client_id, filters.case_id)
    return {
        "clients": _options(clients, shown["client"]),
        "cases": _options(cases, shown["case"]),
        "clients_more": more_clients,
        "cases_more": more_cases,
    }


def deadlines_page(request):
    return render(request, "calendar/deadlines.html", page_context(request))


def _as_page(request):
    """The request as the page an inline action was sent from (htmx sends its address), so the
    answer re-renders that same list; only that address's query string is read."""
    current = request.headers.get("HX-Current-URL") or ""
    try:
        query = urlsplit(current).query
        params = QueryDict(query)
    except ValueError:
        query, params = "", QueryDict("")
    page = copy.copy(request)
    page.GET, page.META = params, {**request.META, "QUERY_STRING": query}
    return page


def _answer(request, done_message: str, failed: DomainError | None):
    if request.headers.get("HX-Request"):
        context = page_context(_as_page(request))
        context["notice"] = failed.message if failed else done_message
        context["notice_failed"] = failed is not None
        return render(request, "calendar/deadlines.html", context, status=422 if failed else 200)
    if failed:
        messages.error(request, failed.message)
    else:
        messages.success(request, done_message)
    return redirect(web.came_from(request, reverse("calendar:deadlines")))


def _lifecycle(request, event_id: int, model: type[BaseModel], change, done: str, **fields: str):
    """A Frist's lifecycle action from the list: the POST through its input `model` (`fields`: form
    field → model field), the change through the lifecycle service `change`; `done` (with its
    `%(title)s`) is the notice, a refusal the page's error notice."""
    try:
        event = change(request.principal, event_id, web.posted(request, model, **fields))
    except DomainError as exc:
        return _answer(request, "", exc)
    return _answer(request, done % {"title": event.title}, None)


@require_POST
def complete(request, event_id: int):
    done = _("“%(title)s” is done.")
    return _lifecycle(
        request, event_id, DeadlineComplete, lifecycle.complete_deadline, done, how="how", link="link"
    )


@require_POST
def cancel(request, event_id: int):
    done = _("“%(title)s” was cancelled.")
    return _lifecycle(request, event_id, DeadlineCancel, lifecycle.cancel_deadline, done, reason="reason")


@require_POST
def reopen(request, event_id: int):
    """A done or cancelled Frist open again; without a reason it is refused and says so."""
    done = _("“%(title)s” is open again.")
    return _lifecycle(request, event_id, DeadlineReopen, lifecycle.reopen_deadline, done, reason="reason")


@web.domain_errors
def history(request, event_id: int):
    """A Frist's Fristenbuch as a fragment (opened inline on the Fristen page and on the Frist)."""
    event = services.get_event(request.principal, event_id)
    return render(request, "calendar/_history.html", {"event": event, "history": lifecycle.history(event)})


def export(request, fmt: str):
    """The Fristenbuch of a period as CSV or PDF (every visible Frist's changes in it); a refusal
    goes back to the Fristen page with the reason. A day outside the date bound (no picker sends
    one) answers 400 with the error (`date_out_of_range`)."""
    try:
        period = web.query_input(request, FristenbuchExportQuery)
    except DateOutOfRange as exc:
        return web.error_json(exc)
    try:
        return fristenbuch.export_response(request.principal, period.since, period.until, fmt)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect(reverse("calendar:deadlines"))
