"""In Chromium: from the Fristen page to "Berichte", and each of the three reports opens as a PDF
with the office's name, page numbers and the Frist rows (read back with pypdf)."""

import datetime as dt
import io
import zoneinfo

import pytest
from pypdf import PdfReader

from apps.calendar.models import CalendarEvent, PreDeadline
from apps.core.services import set_setting
from tests.e2e.helpers import log_in
from tests.e2e.test_layout import PHONE, assert_fits, open_page, serious_violations
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


def _frist(user, title: str, day: dt.date) -> CalendarEvent:
    start = dt.datetime.combine(day, dt.time(0), tzinfo=BERLIN)
    return CalendarEvent.objects.create(
        kind="deadline", title=title, start=start, end=start, all_day=True, owner=user, responsible=user
    )


def _opened_pdf(page, section: str) -> str:
    """Clicks the section's PDF button: Chromium opens the PDF (inline) in its viewer; its bytes
    are fetched again with the page's session for pypdf, then the page goes back to the form."""
    with page.expect_response(
        lambda r: "/kalender/berichte/" in r.url and ".pdf" in r.url, timeout=30000
    ) as info:
        page.locator(f"#report-{section} button.primary").click()
    response = info.value
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    body = page.request.get(response.url).body()
    page.go_back()
    page.wait_for_selector(f"#report-{section}")
    return "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages)


def test_the_three_reports_open_as_pdfs_from_the_fristen_page(server, page):
    user = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    set_setting("office_name", "Kanzlei Berger & Braun")
    today = dt.datetime.now(BERLIN).date()
    _frist(user, "Einspruch Meier heute", today)
    later = _frist(user, "Klage Schulz", today + dt.timedelta(days=5))
    PreDeadline.objects.create(event=later, due_date=today)

    log_in(page, server, user.email)
    page.goto(f"{server}/kalender/fristen/")
    page.get_by_role("link", name="Berichte").click()
    page.wait_for_selector("#report-fristenliste")
    assert page.locator("h1").inner_text() == "Fristenberichte"

    liste = _opened_pdf(page, "fristenliste")
    assert "Kanzlei Berger & Braun" in liste and "Seite 1 von 1" in liste
    assert "Einspruch Meier heute" in liste and "Klage Schulz" in liste
    blatt = _opened_pdf(page, "kontrollblatt")
    assert f"Fristenkontrollblatt {today:%d.%m.%Y}" in blatt and "Seite 1 von 1" in blatt
    assert "Einspruch Meier heute" in blatt and "Klage Schulz" in blatt  # the Vorfrist of today
    ausgang = _opened_pdf(page, "ausgangskontrolle")
    assert "Kanzlei Berger & Braun" in ausgang and "Seite 1 von 1" in ausgang
    assert "Einspruch Meier heute" in ausgang and "OFFEN: weder erledigt noch verschoben" in ausgang
    assert "Klage Schulz" not in ausgang


def test_the_reports_page_fits_a_phone_without_accessibility_violations(server, browser, tmp_path):
    user = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    context = browser.new_context(viewport=PHONE, locale="de-DE", has_touch=True)
    page = context.new_page()
    log_in(page, server, user.email)
    open_page(page, f"{server}/kalender/berichte/")
    assert_fits(page, "/kalender/berichte/")
    assert serious_violations(page) == []
    assert page.locator("section.report").count() == 4  # three reports and the Änderungsprotokoll
    page.screenshot(path=str(tmp_path / "berichte-phone.png"), full_page=True)
    context.close()
