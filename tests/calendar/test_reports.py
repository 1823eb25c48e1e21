"""The Fristenbuch reports (issue 27, item 4): Fristenliste, Fristenkontrollblatt and
Ausgangskontrolle as PDF (read back with pypdf) and CSV; only visible Fristen; bad input answered
on the page; a constant number of queries whatever the number of Fristen."""

import csv
import datetime as dt
import io
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from pypdf import PdfReader

from apps.calendar.models import CalendarEvent, DeadlineChange, PreDeadline
from apps.clients.models import Case
from apps.core.services import set_setting
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
TODAY = dt.datetime.now(BERLIN).date()


def de(day: dt.date) -> str:
    return day.strftime("%d.%m.%Y")


def url(name: str, fmt: str) -> str:
    return reverse("calendar:report", args=[name, fmt])


def pdf_text(response) -> str:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "application/pdf" and response.content.startswith(b"%PDF")
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)


def csv_rows(response) -> list[list[str]]:
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert response.content.startswith("\ufeff".encode())  # BOM: German Excel reads UTF-8
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))


@pytest.fixture
def frist(anna):
    def make(title, day, **fields):
        start = dt.datetime.combine(day, dt.time(0), tzinfo=BERLIN)
        fields.setdefault("owner", anna)
        fields.setdefault("responsible", anna)
        return CalendarEvent.objects.create(
            kind="deadline", title=title, start=start, end=start, all_day=True, **fields
        )

    return make


@pytest.fixture
def office():
    set_setting("office_name", "Kanzlei Berger & Braun")
    set_setting("office_address", "Hauptstraße 1\n80331 München")


@pytest.fixture
def logged_in(client, anna):
    client.force_login(anna)
    return client


def test_the_fristenliste_pdf_has_the_office_header_page_numbers_and_one_row_per_frist(
    logged_in, frist, anna, ben, office
):
    meier = ClientFactory(name="Meier GmbH")
    akte = Case.objects.create(client=meier, reference="2026/0042", subject="Einspruch ESt")
    later = frist("Klagefrist Meier", TODAY + dt.timedelta(days=9), client=meier, case=akte,
                  legal_basis="§ 47 FGO", deputy=ben)  # fmt: skip
    PreDeadline.objects.create(event=later, due_date=TODAY + dt.timedelta(days=2))
    done = frist("Einspruch Schulz", TODAY + dt.timedelta(days=3), legal_basis="§ 355 AO",
                 status="done", done_by=anna, done_how="Einspruch per Fax",
                 done_at=dt.datetime.now(BERLIN))  # fmt: skip
    text = pdf_text(logged_in.get(url("fristenliste", "pdf"), {"since": TODAY.isoformat()}))
    assert "Kanzlei Berger & Braun" in text and "Hauptstraße 1 · 80331 München" in text
    assert "Stand: " in text and "Seite 1 von 1" in text and "Geprüft:" in text
    period = f"{de(TODAY)} – {de(TODAY + dt.timedelta(days=30))}"
    assert f"Fristenliste {period}" in text
    for expected in (de(later.start.date()), de(TODAY + dt.timedelta(days=2)), "Meier GmbH",
                     "2026/0042", "§ 47 FGO", "Ben Braun", "Einspruch per Fax", "erledigt"):  # fmt: skip
        assert expected in text, expected
    assert text.index(done.title) < text.index(later.title)  # sorted by Fristende


def test_the_fristenliste_csv_is_one_row_per_frist_for_german_excel(logged_in, frist, ben):
    frist("=HYPERLINK(evil)", TODAY + dt.timedelta(days=5))
    frist("Frist Ben", TODAY + dt.timedelta(days=1), responsible=ben)
    rows = csv_rows(logged_in.get(url("fristenliste", "csv")))
    assert rows[0][:4] == ["Fristende", "Vorfrist", "Mandant", "Aktenzeichen"]
    assert [row[0] for row in rows[1:]] == [
        de(TODAY + dt.timedelta(days=1)),
        de(TODAY + dt.timedelta(days=5)),
    ]
    assert rows[2][4] == "'=HYPERLINK(evil)"  # no formula for the spreadsheet
    assert rows[1][5] == "Ben Braun"


def test_the_fristenliste_filters_by_period_responsible_and_status(logged_in, frist, ben):
    frist("Anna heute", TODAY)
    frist("Ben heute", TODAY, responsible=ben)
    frist("Anna erledigt", TODAY, status="done")
    frist("Anna später", TODAY + dt.timedelta(days=40))
    params = {"since": TODAY.isoformat(), "until": TODAY.isoformat(), "responsible": ben.pk}
    text = pdf_text(logged_in.get(url("fristenliste", "pdf"), params))
    assert "Ben heute" in text and "Anna heute" not in text and "Zuständig: Ben Braun" in text
    rows = csv_rows(
        logged_in.get(url("fristenliste", "csv"), {**params, "responsible": "", "status": "open"})
    )
    assert sorted(row[4] for row in rows[1:]) == ["Anna heute", "Ben heute"]


def test_an_empty_period_is_a_pdf_that_says_so(logged_in, office):
    text = pdf_text(logged_in.get(url("fristenliste", "pdf"), {"since": "2030-01-01", "until": "2030-01-31"}))
    assert "Keine Fristen im Zeitraum 01.01.2030 – 31.01.2030." in text and "Kanzlei Berger & Braun" in text
    day = pdf_text(logged_in.get(url("kontrollblatt", "pdf"), {"day": "2030-01-02"}))
    assert "Keine Fristen, Vorfristen oder überfälligen Fristen am 02.01.2030." in day
    out = pdf_text(logged_in.get(url("ausgangskontrolle", "pdf"), {"day": "2030-01-02"}))
    assert "Keine am 02.01.2030 fälligen Fristen." in out and "Seite 1 von 1" in out


def test_a_long_list_numbers_its_pages(logged_in, frist):
    for i in range(90):
        frist(f"Frist {i:03d}", TODAY + dt.timedelta(days=i % 20))
    text = pdf_text(logged_in.get(url("fristenliste", "pdf")))
    reader_pages = text.count("Seite ")
    assert reader_pages > 1 and f"Seite 1 von {reader_pages}" in text
    assert f"Seite {reader_pages} von {reader_pages}" in text
    assert all(f"Frist {i:03d}" in text for i in range(90))


def test_the_kontrollblatt_lists_overdue_due_today_and_todays_vorfristen(logged_in, frist, anna):
    overdue = frist("Überfällig offen", TODAY - dt.timedelta(days=3))
    frist("Überfällig gestrichen", TODAY - dt.timedelta(days=3), status="cancelled")
    frist("Heute fällig", TODAY)
    frist(
        "Heute erledigt",
        TODAY,
        status="done",
        done_by=anna,
        done_at=dt.datetime.now(BERLIN),
        done_how="gefaxt",
    )
    week = frist("Nächste Woche", TODAY + dt.timedelta(days=7))
    PreDeadline.objects.create(event=week, due_date=TODAY, note="Entwurf an Mandant")
    frist("Morgen", TODAY + dt.timedelta(days=1))
    rows = csv_rows(logged_in.get(url("kontrollblatt", "csv")))
    assert rows[0][0] == "Art" and rows[0][-1] == "Geprüft"
    assert [(row[0].split("\n")[0], row[2].split("\n")[0]) for row in rows[1:]] == [
        ("überfällig", "Überfällig offen"),
        ("fällig", "Heute fällig"),
        ("fällig", "Heute erledigt"),
        ("Vorfrist", "Nächste Woche"),
    ]
    assert rows[1][1] == de(overdue.start.date()) and "Entwurf an Mandant" in rows[4][0]
    text = pdf_text(logged_in.get(url("kontrollblatt", "pdf"), {"day": TODAY.isoformat()}))
    assert f"Fristenkontrollblatt {de(TODAY)}" in text and "Überfällig: 1 · fällig: 2 · Vorfristen: 1" in text
    assert "Morgen" not in text and "gestrichen" not in text and "Geprüft:" in text


def test_the_ausgangskontrolle_shows_done_carried_and_open(logged_in, frist, anna):
    frist("Erledigt", TODAY, status="done", done_by=anna, done_at=dt.datetime.now(BERLIN), done_how="per beA")
    frist("Vergessen", TODAY)
    moved = frist("Verlängert", TODAY + dt.timedelta(days=14))
    DeadlineChange.objects.create(event=moved, actor=anna, field="due", old=TODAY.isoformat(),
                                  new=(TODAY + dt.timedelta(days=14)).isoformat(),
                                  reason="Fristverlängerung gewährt")  # fmt: skip
    moved_back = frist("Hin und zurück", TODAY)
    DeadlineChange.objects.create(event=moved_back, field="due", old=TODAY.isoformat(), new="2030-01-01")
    frist("Gestern", TODAY - dt.timedelta(days=1))
    rows = csv_rows(logged_in.get(url("ausgangskontrolle", "csv"), {"day": TODAY.isoformat()}))
    outcomes = {row[1].split("\n")[0]: row[4] for row in rows[1:]}
    assert set(outcomes) == {"Erledigt", "Vergessen", "Verlängert", "Hin und zurück"}
    assert outcomes["Erledigt"].startswith("erledigt ") and "per beA" in outcomes["Erledigt"]
    assert outcomes["Vergessen"] == "OFFEN: weder erledigt noch verschoben"
    assert outcomes["Verlängert"].startswith(f"verschoben auf {de(TODAY + dt.timedelta(days=14))}")
    assert "Grund: Fristverlängerung gewährt" in outcomes["Verlängert"]
    text = pdf_text(logged_in.get(url("ausgangskontrolle", "pdf")))
    assert f"Ausgangskontrolle {de(TODAY)}" in text
    assert "Fällig: 4 · erledigt: 1 · verschoben: 1 · gestrichen: 0 · offen: 2" in text


@pytest.mark.parametrize("name", ["fristenliste", "kontrollblatt", "ausgangskontrolle"])
def test_a_colleagues_private_frist_never_appears(client, frist, anna, ben, name):
    frist("Privat Anna", TODAY, visibility="private")
    frist("Kanzlei", TODAY, responsible=ben)
    client.force_login(ben)
    for fmt in ("pdf", "csv"):
        response = client.get(url(name, fmt), {"day": TODAY.isoformat()})
        body = pdf_text(response) if fmt == "pdf" else response.content.decode("utf-8-sig")
        assert "Kanzlei" in body and "Privat Anna" not in body
    client.force_login(anna)
    assert "Privat Anna" in client.get(url(name, "csv"), {"day": TODAY.isoformat()}).content.decode(
        "utf-8-sig"
    )


def test_an_anonymous_visitor_is_sent_to_the_login(client):
    for target in (reverse("calendar:reports"), url("fristenliste", "pdf"), url("ausgangskontrolle", "csv")):
        response = client.get(target)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"since": "2026-02-01", "until": "2026-01-01"}, "darf nicht vor dem ersten Tag liegen"),
        ({"since": "2000-01-01", "until": "2026-01-01"}, "1098"),
        ({"since": "2026-13-01"}, "since"),
        ({"responsible": "999999"}, "ist kein Mitglied der Kanzlei"),
        ({"status": "verloren"}, "status"),
    ],
)
def test_bad_input_goes_back_to_the_page_with_the_reason(logged_in, params, message):
    response = logged_in.get(url("fristenliste", "pdf"), params, follow=True)
    assert response.redirect_chain[-1][0] == reverse("calendar:reports")
    shown = " ".join(str(m) for m in response.context["messages"])
    assert message in shown, shown


def test_unknown_reports_and_formats_are_not_found(logged_in):
    assert logged_in.get("/kalender/berichte/bilanz.pdf").status_code == 404
    assert logged_in.get("/kalender/berichte/fristenliste.xlsx").status_code == 404


@pytest.mark.parametrize("name", ["fristenliste", "kontrollblatt", "ausgangskontrolle"])
def test_the_query_count_does_not_grow_with_the_fristen(logged_in, frist, ben, name):
    def add(n):
        for i in range(n):
            client = ClientFactory()
            case = Case.objects.create(client=client, reference=f"{name}/{n}/{i}", subject="Akte")
            event = frist(f"F{n}-{i}", TODAY + dt.timedelta(days=i % 2), client=client, case=case,
                          deputy=ben, rule_code="einspruch_ao")  # fmt: skip
            PreDeadline.objects.create(event=event, due_date=TODAY)
            DeadlineChange.objects.create(event=event, field="due", old=TODAY.isoformat(), new="2030-01-01")

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert logged_in.get(url(name, "csv"), {"day": TODAY.isoformat()}).status_code == 200
        return len(queries)

    add(5)
    few = count()
    add(45)
    assert count() == few


def test_the_reports_page_links_every_report_and_the_fristen_page_links_it(logged_in):
    page = logged_in.get(reverse("calendar:reports")).content.decode()
    for target in (url("fristenliste", "pdf"), url("kontrollblatt", "pdf"), url("ausgangskontrolle", "pdf"),
                   reverse("calendar:fristenbuch-export", args=["pdf"])):  # fmt: skip
        assert f'action="{target}"' in page
    assert "Änderungsprotokoll" in page and "Fristenkontrollblatt" in page
    assert reverse("calendar:reports") in logged_in.get(reverse("calendar:deadlines")).content.decode()


def test_the_change_log_reads_german_dates_and_names_without_ids(logged_in, frist, anna, office):
    event = frist("Einspruch", TODAY)
    DeadlineChange.objects.create(event=event, actor=anna, field="due", old="", new="2026-12-09 14:00")
    DeadlineChange.objects.create(
        event=event, actor=anna, field="responsible", old="", new=f"Anna Berger (#{anna.pk})"
    )
    DeadlineChange.objects.create(
        event=event, actor=anna, field="pre_deadlines", old="", new="2026-12-02 (Entwurf)"
    )
    params = {"since": TODAY.isoformat(), "until": TODAY.isoformat()}
    response = logged_in.get(reverse("calendar:fristenbuch-export", args=["csv"]), params)
    assert "aenderungsprotokoll_" in response["Content-Disposition"]
    rows = csv_rows(response)
    assert [row[6] for row in rows[1:]] == ["09.12.2026 14:00", "Anna Berger", "02.12.2026 (Entwurf)"]
    assert "(#" not in response.content.decode("utf-8-sig")
    text = pdf_text(logged_in.get(reverse("calendar:fristenbuch-export", args=["pdf"]), params))
    assert f"Änderungsprotokoll {de(TODAY)} – {de(TODAY)}" in text and "Seite 1 von 1" in text
    assert "Kanzlei Berger & Braun" in text and "09.12.2026 14:00" in text
