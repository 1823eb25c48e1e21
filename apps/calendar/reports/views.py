"""The reports page (Fristen → Berichte) and the report downloads. A refused choice (a period
backwards or too long, an unknown person) goes back to the page with the reason, never a broken
file; a report with nothing in it is a PDF that says so."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from pydantic import Field

from apps.calendar import fristenbuch
from apps.calendar.fristen import today_for
from apps.calendar.models import CalendarEvent
from apps.calendar.reports import data
from apps.calendar.reports.render import as_pdf, report_csv
from apps.core import validation
from apps.core.contracts import Date, Input
from apps.core.errors import DomainError
from apps.core.surfaces import web

BUILDERS = {
    "fristenliste": data.fristenliste,
    "kontrollblatt": data.kontrollblatt,
    "ausgangskontrolle": data.ausgangskontrolle,
}
FORMATS = ("pdf", "csv")
LIST_DAYS = 30  # the Fristenliste's default period: today and the next 30 days


class ReportQuery(Input):
    """A report's choices from its form: a period (Fristenliste) or a day, optionally one
    Zuständig and (Fristenliste) one status."""

    since: Date | None = None
    until: Date | None = None
    day: Date | None = None
    responsible: int | None = Field(default=None, ge=1)
    status: Literal["open", "done", "cancelled"] | None = None


def _responsible_name(user_id: int | None) -> str:
    if user_id is None:
        return ""
    user = get_user_model().objects.filter(pk=user_id).only("full_name", "email").first()
    if user is None:
        raise validation.invalid("responsible", _("is not a member of the office"))
    return user.get_full_name()


def scope_of(request, name: str) -> data.Scope:
    """The report's scope from the query string (empty fields left out)."""
    query = web.query_input(request, ReportQuery)
    principal = request.principal
    today = today_for(principal)
    if name == "fristenliste":
        since = query.since or today
        since, until = fristenbuch.period(
            principal, since, query.until or since + dt.timedelta(days=LIST_DAYS)
        )
    else:
        since = until = query.day or today
    return data.Scope(
        principal=principal,
        since=since,
        until=until,
        responsible_id=query.responsible,
        responsible_name=_responsible_name(query.responsible),
        status=query.status if name == "fristenliste" else None,
    )


def download(request, name: str, fmt: str):
    if name not in BUILDERS or fmt not in FORMATS:
        raise Http404
    try:
        scope = scope_of(request, name)
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect(reverse("calendar:reports"))
    report = BUILDERS[name](scope)
    if fmt == "pdf":
        response = HttpResponse(as_pdf(report), content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="{report.slug}.pdf"'
    else:
        response = HttpResponse(report_csv(report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{report.slug}.csv"'
    response["Cache-Control"] = "private, no-store"
    return response


def index(request):
    today = today_for(request.principal)
    people = get_user_model().objects.filter(is_active=True).only("id", "full_name", "email")
    return render(
        request,
        "calendar/reports/index.html",
        {
            "today": today.isoformat(),
            "list_until": (today + dt.timedelta(days=LIST_DAYS)).isoformat(),
            "journal_since": (today - dt.timedelta(days=30)).isoformat(),
            "people": [(u.pk, u.get_full_name()) for u in people],
            "statuses": CalendarEvent.Status.choices,
        },
    )
