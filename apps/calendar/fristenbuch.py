"""The Fristenbuch export: every recorded change of the Fristen a person can see, in a chosen
period, as CSV (for a spreadsheet) or PDF (to file or print). One query for the lines, whatever
their number; the PDF is built with reportlab's standard fonts (no font files needed)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.calendar.fristen import today_for
from apps.calendar.models import CalendarEvent, DeadlineChange
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


def shown_value(field: str, value: str) -> str:
    """A before/after value in the viewer's language (a status is stored as its code)."""
    if field == "status" and value:
        return str(CalendarEvent.Status(value).label) if value in CalendarEvent.Status.values else value
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
        .select_related("actor", "event", "event__client")
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
                str(event.pk),
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
        _("When"), _("Frist no."), _("Frist"), _("Client"), _("Field"), _("Before"), _("After"), _("Reason"), _("By"),
    ]  # fmt: skip


def as_csv(table: list[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(header())
    for row in table:
        # A cell that starts like a formula is not run by a spreadsheet (CSV injection).
        writer.writerow(
            [f"'{cell}" if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell for cell in row]
        )
    return ("\ufeff" + out.getvalue()).encode("utf-8")  # the BOM lets Excel read UTF-8


def as_pdf(table: list[list[str]], title: str) -> bytes:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.platypus import LongTable, Paragraph, SimpleDocTemplate, Spacer, TableStyle

    styles = getSampleStyleSheet()
    cell = styles["BodyText"].clone("cell", fontSize=7.5, leading=9)

    def para(text: str) -> Any:
        return Paragraph(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), cell)

    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer, pagesize=landscape(A4), leftMargin=12 * mm, rightMargin=12 * mm, topMargin=12 * mm,
        bottomMargin=12 * mm, title=title, author="Clapilot",
    )  # fmt: skip
    data = [[para(h) for h in header()]] + [[para(c) for c in row] for row in table]
    widths = [x * mm for x in (26, 14, 52, 34, 22, 30, 30, 40, 25)]
    grid = LongTable(data, colWidths=widths, repeatRows=1)
    grid.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8ecf2")),
                ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#b8c0cc")),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ]
        )
    )
    story = [Paragraph(title, styles["Heading2"]), Spacer(1, 4 * mm)]
    story.append(grid if table else Paragraph(_("No changes in this period."), styles["BodyText"]))
    doc.build(story)
    return buffer.getvalue()


def export_response(principal: Principal, since: Any, until: Any, fmt: str) -> HttpResponse:
    fmt = validation.choice(fmt, "format", FORMATS)
    since, until = period(principal, since, until)
    table = rows(principal, since, until)
    name = f"fristenbuch_{since.isoformat()}_{until.isoformat()}.{fmt}"
    if fmt == "csv":
        response = HttpResponse(as_csv(table), content_type="text/csv; charset=utf-8")
    else:
        title = _("Fristenbuch %(since)s – %(until)s") % {
            "since": since.strftime("%d.%m.%Y"),
            "until": until.strftime("%d.%m.%Y"),
        }
        response = HttpResponse(as_pdf(table, title), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "private, no-store"
    return response
