"""The client page shows everything linked to the Mandant that the viewer may see: open tasks,
upcoming appointments, Fristen with countdown and critical badge, cases, documents; it renders
in a constant number of queries."""

import datetime as dt
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.calendar.models import CalendarEvent
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


def _event(title, client, days=3, **fields):
    start = _at(days)
    end = start if fields.get("kind") == "deadline" else start + dt.timedelta(hours=1)
    return CalendarEvent.objects.create(title=title, start=start, end=end, client=client, **fields)


def test_shows_open_tasks_events_deadlines_and_cases(web, anna, board, statuses, make_client, make_case):
    meier = make_client("Meier GmbH")
    other = make_client("Autohaus König")
    Task.objects.create(title="Einspruch prüfen", board=board, status=statuses["offen"], client=meier)
    Task.objects.create(title="Erledigte Sache", board=board, status=statuses["erledigt"], client=meier)
    Task.objects.create(title="Fremde Aufgabe", board=board, status=statuses["offen"], client=other)
    _event("Jahresgespräch Meier", meier, days=4, location="Raum 1")
    _event("Vergangenes Gespräch", meier, days=-3)
    _event(
        "Einspruchsfrist Bescheid",
        meier,
        days=2,
        kind="deadline",
        criticality="critical",
        legal_basis="§ 355 AO",
    )
    _event("Frist König", other, days=2, kind="deadline")
    make_case(meier, subject="Körperschaftsteuer 2023", reference="2026-0003")

    response = web.get(reverse("clients:detail", args=[meier.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Einspruch prüfen" in body and "Erledigte Sache" not in body and "Fremde Aufgabe" not in body
    assert "Jahresgespräch Meier" in body and "Vergangenes Gespräch" not in body
    assert "Einspruchsfrist Bescheid" in body and "§ 355 AO" in body and "Frist König" not in body
    assert 'class="badge critical"' in body and "in 2 Tagen" in body  # countdown, German by default
    assert "Körperschaftsteuer 2023" in body and "2026-0003" in body
    assert 'id="client-documents"' in body  # the documents section (hook until documents link clients)
    assert f'data-client-id="{meier.pk}"' in body and "js/client-page.js" in body
    assert f"{reverse('calendar:create')}?client={meier.pk}" in body


def test_private_items_of_other_people_stay_hidden(web, anna, statuses, make_client):
    meier = make_client("Meier GmbH")
    ben = UserFactory(email="ben@kanzlei.example")
    bens_board = Board.objects.create(name="Bens Board", visibility="private", owner=ben)
    Task.objects.create(title="Bens private Notiz", board=bens_board, status=statuses["offen"], client=meier)
    _event("Bens privater Termin", meier, visibility="private", owner=ben)
    _event("Bens private Frist", meier, kind="deadline", visibility="private", owner=ben)
    body = web.get(reverse("clients:detail", args=[meier.pk])).content.decode()
    assert "Bens private" not in body and "Bens privater" not in body


def test_query_count_is_constant(web, anna, board, statuses, make_client, make_case, settings, tmp_path):
    from tests.documents.factories import DocumentFactory

    settings.MEDIA_ROOT = tmp_path
    meier = make_client("Meier GmbH", responsible=anna)
    url = reverse("clients:detail", args=[meier.pk])

    def add(n, prefix):
        for i in range(n):
            person = UserFactory()
            Task.objects.create(
                title=f"{prefix} Aufgabe {i}",
                board=board,
                status=statuses["offen"],
                client=meier,
                assignee=person,
            )
            _event(f"{prefix} Termin {i}", meier, days=1 + i, owner=person).attendees.add(person)
            _event(f"{prefix} Frist {i}", meier, days=1 + i, kind="deadline", owner=person)
            make_case(meier, responsible=person)
            DocumentFactory(title=f"{prefix} Dokument {i}", created_by=person).clients.add(
                meier, make_client()
            )

    add(1, "a")
    web.get(url)
    with CaptureQueriesContext(connection) as few:
        assert web.get(url).status_code == 200
    add(12, "b")
    with CaptureQueriesContext(connection) as many:
        assert web.get(url).status_code == 200
    assert len(many) == len(few), [q["sql"][:120] for q in many.captured_queries]


def test_recurring_client_appointment_shows_its_next_occurrences(web, make_client):
    meier = make_client("Meier GmbH")
    start = _at(1)
    CalendarEvent.objects.create(
        title="Wöchentliche Abstimmung",
        start=start,
        end=start + dt.timedelta(hours=1),
        client=meier,
        rrule="FREQ=WEEKLY;COUNT=3",
        recurrence_end=start + dt.timedelta(weeks=2, hours=1),
    )
    body = web.get(reverse("clients:detail", args=[meier.pk])).content.decode()
    assert body.count("Wöchentliche Abstimmung") == 3


def test_add_a_task_for_the_client_from_its_page(web, board, statuses, make_client):
    meier = make_client("Meier GmbH")
    url = reverse("clients:detail", args=[meier.pk])
    response = web.post(
        reverse("tasks:quick-add"), {"title": "Belege anfordern", "client": meier.pk, "next": url}
    )
    assert response.status_code == 302 and response.url == url
    task = Task.objects.get()
    assert task.client_id == meier.pk and task.board_id == board.pk and task.status.key == "offen"
    assert "Belege anfordern" in web.get(url).content.decode()
    bad = web.post(
        reverse("tasks:quick-add"), {"title": "X", "client": 424242, "next": "https://evil.example/"}
    )
    assert bad.status_code == 404 and Task.objects.count() == 1  # unknown client; foreign "next" ignored


def test_shows_the_clients_documents_but_not_other_peoples_personal_ones(
    web, settings, tmp_path, make_client
):
    from tests.documents.factories import DocumentFactory, FolderFactory

    settings.MEDIA_ROOT = tmp_path
    meier = make_client("Meier GmbH")
    ben = UserFactory(email="ben@kanzlei.example")
    linked = DocumentFactory(title="Bescheid 2023 Meier")
    linked.clients.add(meier)
    DocumentFactory(title="Kanzleihandbuch")
    personal = DocumentFactory(
        title="Bens Entwurf", folder=FolderFactory(name="Persönlich", kind="personal", owner=ben)
    )
    personal.clients.add(meier)
    body = web.get(reverse("clients:detail", args=[meier.pk])).content.decode()
    assert "Bescheid 2023 Meier" in body and reverse("documents:detail", args=[linked.pk]) in body
    assert "Kanzleihandbuch" not in body and "Bens Entwurf" not in body
