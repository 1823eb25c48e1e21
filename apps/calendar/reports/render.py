"""One layout for every Fristenbuch report: a `Report` (title, scope, columns, rows) as a PDF an
office files, or as CSV that German Excel opens (semicolons, UTF-8 with BOM).

The PDF uses reportlab's standard fonts (WinAnsi: German and Italian text, „“–€ print; no font
files needed). Page numbers are written once the page count is known ("Seite 1 von 3")."""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    LongTable,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    TableStyle,
)

from apps.core.services import get_setting

OFFICE_NAME_FALLBACK = "Kanzlei"


@dataclass(frozen=True)
class Column:
    label: str
    width_mm: float


@dataclass
class Report:
    """What a report shows. `rows` hold plain text (a line break as "\\n"); `marked` are the
    indexes of rows that need attention (printed bold on a tinted background)."""

    slug: str  # the file name's stem, e.g. "fristenliste_2026-12-01_2026-12-31"
    title: str
    scope: str  # the period and filters, in one line
    columns: list[Column]
    rows: list[list[str]]
    empty: str  # the sentence printed instead of an empty table
    generated: dt.datetime  # "Stand", in the viewer's zone
    summary: str = ""
    check_column: bool = False  # a box per row to tick by hand ("geprüft")
    marked: set[int] = field(default_factory=set)
    truncated: bool = False


def date_de(day: dt.date) -> str:
    return day.strftime("%d.%m.%Y")


def moment_de(moment: dt.datetime) -> str:
    return moment.strftime("%d.%m.%Y %H:%M")


def office() -> tuple[str, str]:
    """The office's name and address as the Kanzlei settings page stores them (strings)."""
    name = str(get_setting("office_name", "") or "").strip() or OFFICE_NAME_FALLBACK
    address = str(get_setting("office_address", "") or "").strip()
    return name, address


# --- CSV ------------------------------------------------------------------------------------------
def _cell(text: str) -> str:
    # A cell that starts like a formula is not run by a spreadsheet (CSV injection).
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def as_csv(header: list[str], rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(cell) for cell in row])
    return ("\ufeff" + out.getvalue()).encode("utf-8")  # the BOM lets Excel read UTF-8


def report_csv(report: Report) -> bytes:
    header = [c.label for c in report.columns]
    rows = report.rows
    if report.check_column:
        header.append(_("Checked"))
        rows = [[*row, ""] for row in rows]
    return as_csv(header, rows)


# --- PDF ------------------------------------------------------------------------------------------
MARGIN = 12 * mm
STYLES = getSampleStyleSheet()
CELL = STYLES["BodyText"].clone("report-cell", fontSize=7.5, leading=9)
CELL_BOLD = CELL.clone("report-cell-bold", fontName="Helvetica-Bold")
SMALL = STYLES["BodyText"].clone("report-small", fontSize=8.5, leading=11)
LINE = colors.HexColor("#b8c0cc")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\n", "<br/>")


class CheckBox(Flowable):
    """An empty square to tick by hand."""

    def __init__(self, size: float = 3.8 * mm) -> None:
        super().__init__()
        self.size = self.width = self.height = size

    def draw(self) -> None:
        self.canv.setLineWidth(0.6)
        self.canv.rect(0, 0, self.size, self.size)


def _numbered_canvas(footer_left: str) -> type[Canvas]:
    class NumberedCanvas(Canvas):
        """Keeps every page until the end, then stamps "Seite n von N" on each."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._kept: list[dict] = []

        def showPage(self) -> None:
            self._kept.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._kept)
            for number, state in enumerate(self._kept, start=1):
                self.__dict__.update(state)
                width = self._pagesize[0]
                self.setFont("Helvetica", 8)
                self.drawString(MARGIN, 7 * mm, footer_left[:120])
                pages = _("Page %(page)d of %(pages)d") % {"page": number, "pages": total}
                self.drawRightString(width - MARGIN, 7 * mm, pages)
                super().showPage()
            super().save()

    return NumberedCanvas


def _header(name: str, address: str, stand: str):
    def draw(canvas: Canvas, doc: Any) -> None:
        width, height = doc.pagesize
        canvas.saveState()
        canvas.setFont("Helvetica-Bold", 11)
        canvas.drawString(MARGIN, height - 10 * mm, name[:100])
        canvas.setFont("Helvetica", 8)
        if address:
            canvas.drawString(MARGIN, height - 14 * mm, " · ".join(address.splitlines())[:180])
        canvas.drawRightString(width - MARGIN, height - 10 * mm, stand)
        canvas.setStrokeColor(LINE)
        canvas.line(MARGIN, height - 16 * mm, width - MARGIN, height - 16 * mm)
        canvas.restoreState()

    return draw


PADDING = 6  # reportlab's default left + right cell padding, in points


def _cell_content(text: str, width: float, bold: bool) -> Any:
    """Plain text where every line fits the column (a table draws it cheaply), else a Paragraph
    that wraps: most cells are short, and Paragraphs made up most of the build time."""
    font = "Helvetica-Bold" if bold else "Helvetica"
    if all(stringWidth(part, font, CELL.fontSize) <= width - PADDING for part in text.split("\n")):
        return text
    return Paragraph(_escape(text), CELL_BOLD if bold else CELL)


def _table(report: Report) -> LongTable:
    head: list[Any] = [Paragraph(_escape(c.label), CELL_BOLD) for c in report.columns]
    widths = [c.width_mm * mm for c in report.columns]
    if report.check_column:
        head.append(Paragraph(_escape(_("Checked")), CELL_BOLD))
        widths.append(16 * mm)
    data = [head]
    for index, row in enumerate(report.rows):
        bold = index in report.marked
        line: list[Any] = [_cell_content(text, width, bold) for text, width in zip(row, widths, strict=False)]
        if report.check_column:
            line.append(CheckBox())
        data.append(line)
    grid = LongTable(data, colWidths=widths, repeatRows=1)
    commands: list[tuple] = [
        ("FONT", (0, 1), (-1, -1), "Helvetica", CELL.fontSize, CELL.leading),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8ecf2")),
        ("GRID", (0, 0), (-1, -1), 0.25, LINE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
    for i in report.marked:
        commands += [
            ("BACKGROUND", (0, i + 1), (-1, i + 1), colors.HexColor("#fde8e8")),
            ("FONT", (0, i + 1), (-1, i + 1), "Helvetica-Bold", CELL.fontSize, CELL.leading),
        ]
    grid.setStyle(TableStyle(commands))
    return grid


def as_pdf(report: Report) -> bytes:
    name, address = office()
    stand = _("As of: %(moment)s") % {"moment": moment_de(report.generated)}
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer, pagesize=landscape(A4), leftMargin=MARGIN, rightMargin=MARGIN, topMargin=20 * mm,
        bottomMargin=14 * mm, title=report.title, author=name, creator="Clapilot",
    )  # fmt: skip
    story: list[Any] = [
        Paragraph(_escape(report.title), STYLES["Heading2"]),
        Paragraph(_escape(report.scope), SMALL),
    ]
    if report.summary:
        story.append(Paragraph(_escape(report.summary), SMALL))
    story.append(Spacer(1, 3 * mm))
    if report.rows:
        story.append(_table(report))
        if report.truncated:
            story.append(Paragraph(_escape(_("Only the first rows are shown: narrow the period.")), SMALL))
    else:
        story.append(Paragraph(_escape(report.empty), STYLES["Heading3"]))
    sign_off = _("Checked: ______________________________   Date/signature")
    story.append(KeepTogether([Spacer(1, 10 * mm), Paragraph(_escape(sign_off), SMALL)]))
    draw = _header(name, address, stand)
    doc.build(story, onFirstPage=draw, onLaterPages=draw, canvasmaker=_numbered_canvas(report.title))
    return buffer.getvalue()
