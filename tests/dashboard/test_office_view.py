"""Heute's "Ganze Kanzlei" view: admins and holders of `dashboard.view_office_day` see the
office's cards (team overdue Fristen and tasks, Fristen without an active responsible person,
this week's Vertretungen); anyone else asking for it gets the personal view and no office data.
Queries stay constant in the number of rows."""

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.tasks.models import Board, Task
from tests.factories import UserFactory
from tests.notifications.fristen_rows import frist

pytestmark = pytest.mark.django_db

OFFICE = reverse("dashboard") + "?ansicht=kanzlei"


@pytest.fixture
def office_day(anna, ben, statuses):
    today = timezone.localdate()
    gone = UserFactory(email="gone@kanzlei.example", full_name="Gerd Gegangen", is_active=False)
    board = Board.objects.create(name="Kanzlei")
    Task.objects.create(
        board=board,
        status=statuses["offen"],
        title="Bens verspätete Aufgabe",
        assignee=ben,
        due_date=today - dt.timedelta(days=2),
    )
    sunday = today + dt.timedelta(days=6 - today.weekday())
    return {
        "late": frist("Bens überfällige Frist", today - dt.timedelta(days=3), responsible=ben),
        "orphan": frist("Frist von Gerd", today + dt.timedelta(days=10), responsible=gone),
        "nobody": frist("Frist ohne Zuständige", today + dt.timedelta(days=12)),
        "deputy": frist("Vertretene Frist", sunday, responsible=ben, deputy=anna),
        "private": frist(
            "Bens private Frist",
            today - dt.timedelta(days=1),
            responsible=ben,
            visibility="private",
            owner=ben,
        ),
    }


def test_admin_sees_the_office_cards(client, boss, office_day):
    client.force_login(boss)
    page = client.get(reverse("dashboard")).content.decode()
    assert 'data-scope="office"' in page and "data-office-view" not in page  # the switch, personal view
    html = client.get(OFFICE).content.decode()
    assert "data-office-view" in html
    for card in ("office_overdue", "office_tasks", "office_orphaned", "office_deputies"):
        assert f'data-card="{card}"' in html
    assert "Bens überfällige Frist" in html
    assert "Bens verspätete Aufgabe" in html
    assert "Frist von Gerd" in html and "Frist ohne Zuständige" in html
    assert "Vertretene Frist" in html
    assert "Bens private Frist" not in html  # a private entry stays its owner's, also for admins
    # the card for the cards refresh keeps the office view
    assert "data-office-view" in client.get(reverse("dashboard-today") + "?ansicht=kanzlei").content.decode()


def test_permission_holder_sees_the_office_view(client, anna, office_day):
    anna.user_permissions.add(
        Permission.objects.get(codename="view_office_day", content_type__app_label="dashboard")
    )
    client.force_login(anna)
    html = client.get(OFFICE).content.decode()
    assert "data-office-view" in html and "Bens verspätete Aufgabe" in html


def test_staff_asking_for_the_office_view_gets_only_their_own_day(client, anna, office_day):
    """The attack: a staff member edits the URL (page and the cards' refresh) to the office view."""
    client.force_login(anna)
    for url in (OFFICE, reverse("dashboard-today") + "?ansicht=kanzlei"):
        response = client.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        assert "data-office-view" not in html
        assert 'data-scope="office"' not in html
        assert "Bens überfällige Frist" not in html
        assert "Bens verspätete Aufgabe" not in html
        assert "Frist von Gerd" not in html
    assert "Vertretene Frist" in client.get(OFFICE).content.decode()  # her own (as deputy)


def test_labels_say_mine(client, anna, office_day):
    client.force_login(anna)
    with timezone.override("Europe/Berlin"):
        html = client.get(reverse("dashboard"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Meine offenen Fristen" in html or "meine offenen Fristen" in html


def test_office_view_queries_do_not_grow_with_rows(client, boss, ben, statuses, office_day):
    client.force_login(boss)

    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(OFFICE).status_code == 200
        return len(ctx.captured_queries)

    before = count()
    today = timezone.localdate()
    board = Board.objects.first()
    for i in range(12):
        frist(f"Mehr überfällig {i}", today - dt.timedelta(days=1 + i), responsible=ben)
        frist(f"Mehr verwaist {i}", today + dt.timedelta(days=5 + i))
        Task.objects.create(
            board=board,
            status=statuses["offen"],
            title=f"Alt {i}",
            assignee=ben,
            due_date=today - dt.timedelta(days=1),
        )
    assert count() == before
    assert before <= 40


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "de",
            [
                "Ganze Kanzlei",
                "Team: überfällige Fristen",
                "Vertretungen diese Woche",
                "Meine überfälligen Fristen",
            ],
        ),
        (
            "it",
            [
                "Intero studio",
                "Team: termini scaduti",
                "Sostituzioni di questa settimana",
                "I miei termini scaduti",
            ],
        ),
    ],
)
def test_office_view_is_translated(client, boss, office_day, language, expected):
    boss.language = language
    boss.save(update_fields=["language"])
    client.force_login(boss)
    html = client.get(OFFICE).content.decode()
    for text in expected:
        assert text in html, text
    for english in ("Whole office", "Team: overdue", "Deputies this week", "My overdue", "deputises for"):
        assert english not in html, english
