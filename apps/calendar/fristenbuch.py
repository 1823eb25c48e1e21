"""The Änderungsprotokoll (the Fristenbuch's change journal): every recorded change of the Fristen
a person can see, in a chosen period, as CSV (for a spreadsheet) or PDF (to file or print), in the
reports' layout (`apps.calendar.reports.render`). One query for the lines, whatever their number.
Values are stored as the services wrote them (ISO dates, "Name (#id)") and shown the office's way
(dd.mm.yyyy, the name alone)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.calendar.fristen import today_for
from apps.calendar.models import CalendarEvent, DeadlineChange
from apps.calendar.reports.render import Column, Report, as_csv, as_pdf, date_de
from apps.calendar.visibility import visible_events
from apps.core import validation

MAX_DAYS = 3 * 366
MAX_LINES = 20_000
FORMATS = ("csv", "pdf")


FIELDS = ("due", "responsible", "deputy", "status", "pre_deadlines")


def field_label(field: str) -> str:
    """A Fristenbuch row's field code in the viewer's language."""
    return {
        "due": _("Due date"),
        "responsible": _("Responsible"),
        "deputy": _("Deputy"),
        "status": _("Status"),
        "pre_deadlines": _("Vorfristen"),
    }.get(field, field)


ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
PERSON_ID = re.compile(r" \(#\d+\)$")


def shown_value(field: str, value: str) -> str:
    """A before/after value in the viewer's language (a status is stored as its code), dates as
    dd.mm.yyyy, a person without the "(#7)" the journal stores to tell namesakes apart."""
    if field == "status" and value:
        return str(CalendarEvent.Status(value).label) if value in CalendarEvent.Status.values else value
    if field in ("due", "pre_deadlines"):
        return ISO_DAY.sub(r"\3.\2.\1", value)
    if field in ("responsible", "deputy"):
        return PERSON_ID.sub("", value)
    return value


def period(principal: Principal, since: dt.date | None, until: dt.date | None) -> tuple[dt.date, dt.date]:
    until = until or today_for(principal)
    since = since or until - dt.timedelta(days=30)
    if until < since:
        raise validation.invalid("until", _("must not be before the first day"))
    if (until - since).days > MAX_DAYS:
        raise validation.invalid("since", _("the period may span at most %(n)d days") % {"n": MAX_DAYS})
    return since, until


def lines(principal: Principal, since: dt.date, until: dt.date):
    tz = principal.time_zone
    begin = dt.datetime.combine(since, dt.time(0), tzinfo=tz)
    end = dt.datetime.combine(until + dt.timedelta(days=1), dt.time(0), tzinfo=tz)
    deadlines = visible_events(principal).filter(kind=CalendarEvent.Kind.DEADLINE).values("id")
    return (
        DeadlineChange.objects.filter(event__in=deadlines, at__gte=begin, at__lt=end)
        .select_related("actor", "event", "event__client", "event__case")
        .order_by("at", "id")[:MAX_LINES]
    )


def rows(principal: Principal, since: dt.date, until: dt.date) -> list[list[str]]:
    tz = principal.time_zone
    found = []
    for line in lines(principal, since, until):
        event = line.event
        found.append(
            [
                timezone.localtime(line.at, tz).strftime("%d.%m.%Y %H:%M"),
                event.case.reference if event.case_id else "",
                event.title,
                event.client.name if event.client_id else "",
                field_label(line.field),
                shown_value(line.field, line.old),
                shown_value(line.field, line.new),
                line.reason_shown,
                (line.actor.full_name or line.actor.email) if line.actor else line.actor_label,
            ]
        )
    return found


def header() -> list[str]:
    return [
        _("When"), _("Case reference"), _("Frist"), _("Client"), _("Field"), _("Before"), _("After"),
        _("Reason"), _("By"),
    ]  # fmt: skip


WIDTHS = (26, 24, 48, 32, 22, 30, 30, 40, 21)


def report(principal: Principal, since: dt.date, until: dt.date) -> Report:
    period_text = _("%(since)s – %(until)s") % {"since": date_de(since), "until": date_de(until)}
    table = rows(principal, since, until)
    return Report(
        slug=f"aenderungsprotokoll_{since.isoformat()}_{until.isoformat()}",
        title=_("Change log %(period)s") % {"period": period_text},
        scope=_("Every recorded change of a deadline in the period %(period)s.") % {"period": period_text},
        columns=[Column(label, width) for label, width in zip(header(), WIDTHS, strict=True)],
        rows=table,
        empty=_("No changes in the period %(period)s.") % {"period": period_text},
        generated=timezone.now().astimezone(principal.time_zone),
        truncated=len(table) >= MAX_LINES,
    )


def export_response(principal: Principal, since: Any, until: Any, fmt: str) -> HttpResponse:
    fmt = validation.choice(fmt, "format", FORMATS)
    since, until = period(principal, since, until)
    journal = report(principal, since, until)
    if fmt == "csv":
        response = HttpResponse(as_csv(header(), journal.rows), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(as_pdf(journal), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{journal.slug}.{fmt}"'
    response["Cache-Control"] = "private, no-store"
    return response
