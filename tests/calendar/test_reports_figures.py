"""The figure issue 27 asks for: how long the Fristenliste PDF of 500 Fristen takes to build (the
query and the layout), printed for the record (`pytest -s`), with a generous bound so a regression
to per-row queries or quadratic layout fails."""

import datetime as dt
import io
import time
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pypdf import PdfReader

from apps.accounts.principal import Principal
from apps.calendar.models import CalendarEvent, PreDeadline
from apps.calendar.reports import data
from apps.calendar.reports.render import as_pdf
from apps.clients.models import Case
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


def test_the_fristenliste_pdf_of_500_fristen(anna, ben):
    today = dt.datetime.now(BERLIN).date()
    clients = [ClientFactory() for _ in range(20)]
    cases = [
        Case.objects.create(client=c, reference=f"2026/{i:04d}", subject="Akte")
        for i, c in enumerate(clients)
    ]
    events = CalendarEvent.objects.bulk_create(
        CalendarEvent(
            kind="deadline", title=f"Einspruch Bescheid {i}", legal_basis="§ 355 Abs. 1 AO",
            start=(start := dt.datetime.combine(today + dt.timedelta(days=i % 60), dt.time(0), tzinfo=BERLIN)),
            end=start, all_day=True, owner=anna, responsible=anna, deputy=ben,
            client=clients[i % 20], case=cases[i % 20],
        )
        for i in range(500)
    )  # fmt: skip
    PreDeadline.objects.bulk_create(
        PreDeadline(event=e, due_date=e.start.date() - dt.timedelta(days=7)) for e in events
    )
    scope = data.Scope(principal=Principal.for_user(anna), since=today, until=today + dt.timedelta(days=60))
    began = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        report = data.fristenliste(scope)
    built = time.perf_counter()
    pdf = as_pdf(report)
    done = time.perf_counter()
    pages = len(PdfReader(io.BytesIO(pdf)).pages)
    print(
        f"\nFristenliste, 500 Fristen: rows {built - began:.2f} s ({len(queries)} queries), "
        f"PDF {done - built:.2f} s, {pages} pages, {len(pdf) // 1024} KiB"
    )
    assert len(report.rows) == 500 and len(queries) <= 6
    assert pages > 10 and done - began < 60
