"""The case page (Akte) shows everything linked to the case that the viewer may see (open tasks,
Fristen, appointments, notes, and what other apps contribute) in a constant number of queries;
the client page lists the client's cases with their open items."""

import datetime as dt
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.calendar.models import CalendarEvent
from apps.clients.models import Case
from apps.notes.models import Note
from apps.tasks.models import Board, Task
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


@pytest.fixture
def board(db):
    return Board.objects.create(name="Steuern")


def _at(days: int, hour: int = 10) -> dt.datetime:
    day = dt.datetime.now(BERLIN).date() + dt.timedelta(days=days)
    return dt.datetime.combine(day, dt.time(hour), tzinfo=BERLIN)


def _event(title, case, days=3, **fields):
    start = _at(days)
    end = start if fields.get("kind") == "deadline" else start + dt.timedelta(hours=1)
    return CalendarEvent.objects.create(
        title=title, start=start, end=end, client=case.client, case=case, **fields
    )


def test_shows_what_is_linked_to_the_case(web, board, statuses, make_client, make_case):
    meier = make_client("Meier GmbH")
    akte = make_case(meier, subject="Einspruch ESt 2024", reference="2026-0042")
    other = make_case(meier, subject="Lohn 2025")
    Task.objects.create(
        title="Einspruch begründen", board=board, status=statuses["offen"], client=meier, case=akte
    )
    Task.objects.create(title="Erledigt", board=board, status=statuses["erledigt"], client=meier, case=akte)
    Task.objects.create(title="Andere Akte", board=board, status=statuses["offen"], client=meier, case=other)
    Task.objects.create(title="Nur Mandant", board=board, status=statuses["offen"], client=meier)
    _event("Einspruchsfrist", akte, days=2, kind="deadline", criticality="critical")
    _event("Besprechung Einspruch", akte, days=5)
    _event("Frist andere Akte", other, days=2, kind="deadline")
    Note.objects.create(name="Aktenvermerk", visibility="shared", case=akte)

    response = web.get(reverse("clients:case", args=[akte.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Einspruch ESt 2024" in body and "2026-0042" in body and "Meier GmbH" in body
    assert "Einspruch begründen" in body and "Erledigt" not in body
    linked = body.split('id="case-linked"', 1)[1]
    assert "Andere Akte" not in body and "Nur Mandant" not in linked
    assert '<option value="tasks:' in body  # the client's task without a case may be linked
    assert "Einspruchsfrist" in body and 'class="badge critical"' in body and "Frist andere Akte" not in body
    assert "Besprechung Einspruch" in body and "Aktenvermerk" in body
    for key in ("tasks", "deadlines", "events", "notes"):
        assert f'id="case-{key}"' in body
    assert f'data-case-id="{akte.pk}"' in body and "js/case-page.js" in body
    topics = response.context["linked_topics"]
    assert {"aufgaben.task", "calendar.event", "notizen.note"} <= set(topics)


def test_private_items_of_other_people_stay_hidden(web, statuses, make_client, make_case):
    akte = make_case(make_client("Meier GmbH"))
    ben = UserFactory(email="ben@kanzlei.example")
    bens_board = Board.objects.create(name="Bens Board", visibility="private", owner=ben)
    Task.objects.create(title="Bens Aufgabe", board=bens_board, status=statuses["offen"], case=akte)
    _event("Bens Termin", akte, visibility="private", owner=ben)
    _event("Bens Frist", akte, kind="deadline", visibility="private", owner=ben)
    Note.objects.create(name="Bens Notiz", visibility="private", owner=ben, case=akte)
    body = web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    assert "Bens " not in body


def test_unknown_case_is_a_404(web):
    assert web.get(reverse("clients:case", args=[424242])).status_code == 404


def test_query_count_is_constant(web, board, statuses, make_client, make_case, django_assert_num_queries):
    meier = make_client("Meier GmbH")
    akte = make_case(meier)
    url = reverse("clients:case", args=[akte.pk])

    def add(n, prefix):
        for i in range(n):
            person = UserFactory()
            Task.objects.create(
                title=f"{prefix} Aufgabe {i}",
                board=board,
                status=statuses["offen"],
                case=akte,
                assignee=person,
            )
            _event(f"{prefix} Termin {i}", akte, days=1 + i, owner=person).attendees.add(person)
            _event(f"{prefix} Frist {i}", akte, days=1 + i, kind="deadline", owner=person, responsible=person)
            Note.objects.create(name=f"{prefix} Notiz {i}", visibility="shared", owner=person, case=akte)

    add(1, "a")
    web.get(url)  # warm per-process caches
    with CaptureQueriesContext(connection) as few:
        assert web.get(url).status_code == 200
    add(12, "b")
    with django_assert_num_queries(len(few)):
        body = web.get(url).content.decode()
    assert "b Aufgabe 11" in body and "b Notiz 11" in body and "b Frist 11" in body


def test_client_page_lists_cases_with_their_open_items(web, board, statuses, make_client, make_case):
    meier = make_client("Meier GmbH")
    akte = make_case(meier, subject="Einspruch ESt 2024")
    leer = make_case(meier, subject="Ohne Offenes")
    closed = make_case(meier, subject="Alte Akte", status="closed")
    for i in range(3):
        Task.objects.create(title=f"T{i}", board=board, status=statuses["offen"], client=meier, case=akte)
    Task.objects.create(title="Fertig", board=board, status=statuses["erledigt"], client=meier, case=akte)
    _event("Frist", akte, kind="deadline")
    response = web.get(reverse("clients:detail", args=[meier.pk]))
    body = response.content.decode()
    assert "3 offene Aufgaben" in body and "1 offene Frist" in body
    section = next(s for s in response.context["sections"] if s.key == "cases")
    items = {row["case"].pk: [i.label for i in row["open_items"]] for row in section.context["case_rows"]}
    assert items[leer.pk] == [] and items[closed.pk] == []
    assert items[akte.pk] == ["1 offene Frist", "3 offene Aufgaben"]  # Fristen first
    assert [row["case"].pk for row in section.context["case_rows"]][-1] == closed.pk  # open cases first
    assert reverse("clients:case", args=[akte.pk]) in body
    assert {"aufgaben.task", "calendar.event"} <= set(section.live_topics)


def test_client_page_query_count_stays_constant_with_open_items(web, board, statuses, make_client, make_case):
    meier = make_client("Meier GmbH")
    url = reverse("clients:detail", args=[meier.pk])

    def add(n):
        for _i in range(n):
            akte = make_case(meier)
            Task.objects.create(title="T", board=board, status=statuses["offen"], client=meier, case=akte)
            _event("F", akte, kind="deadline")

    add(1)
    web.get(url)
    with CaptureQueriesContext(connection) as few:
        web.get(url)
    add(10)
    with CaptureQueriesContext(connection) as many:
        web.get(url)
    assert len(many) == len(few)


def test_the_page_under_its_client(web, make_client, make_case):
    meier, vogel = make_client("Meier GmbH"), make_client("Schreinerei Vogel")
    akte = make_case(meier, subject="Einspruch ESt 2024")
    response = web.get(reverse("clients:client-case", args=[meier.pk, akte.pk]))
    assert response.status_code == 200 and "Einspruch ESt 2024" in response.content.decode()
    assert web.get(reverse("clients:client-case", args=[vogel.pk, akte.pk])).status_code == 404


def test_close_and_reopen_from_the_page_with_a_version_check(web, make_client, make_case):
    akte = make_case(make_client("Meier GmbH"))
    url = reverse("clients:case-status", args=[akte.pk])
    assert "Akte schließen" in web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    assert web.post(url, {"status": "closed", "version": akte.version}).status_code == 302
    akte.refresh_from_db()
    assert akte.status == "closed" and akte.version == 2
    stale = web.post(url, {"status": "open", "version": 1}, follow=True)
    assert "zwischenzeitlich von jemand anderem geändert" in stale.content.decode()
    akte.refresh_from_db()
    assert akte.status == "closed"
    bad = web.post(url, {"status": "vielleicht", "version": akte.version}, follow=True)
    assert bad.status_code == 200 and Case.objects.get(pk=akte.pk).status == "closed"
