"""The morning digest: one notification per person with something to do today (Fristen,
Vorfristen, overdue tasks, unread count), in their language, once a day, at constant reading
cost however many people get one."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.notifications import digest
from apps.notifications.models import Notification
from apps.notifications.services import notify
from apps.tasks.models import Board, Task
from tests.factories import UserFactory
from tests.notifications.fristen_rows import frist

pytestmark = pytest.mark.django_db
TODAY = dt.date(2026, 12, 2)


def test_digest_counts_the_day_once(anna, ben, statuses):
    idle = UserFactory(email="idle@kanzlei.example")
    frist("Klage Schulz", TODAY, responsible=anna, deputy=ben)
    frist("Einspruch Meier", TODAY + dt.timedelta(days=7), responsible=anna, pre=[TODAY])
    frist("Erledigt", TODAY, responsible=anna, status="done")
    board = Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    Task.objects.create(
        title="Alt",
        board=board,
        status=statuses["offen"],
        assignee=anna,
        due_date=TODAY - dt.timedelta(days=1),
    )
    Task.objects.create(
        title="Fertig",
        board=board,
        status=statuses["erledigt"],
        assignee=anna,
        due_date=TODAY - dt.timedelta(days=1),
    )
    notify(anna, kind="reminder", title="Vollmacht fehlt")

    assert digest.send_morning_digest(TODAY) == 2
    assert digest.send_morning_digest(TODAY) == 0  # once a day
    mine = Notification.objects.get(user=anna, kind="digest")
    assert mine.title == "Ihr Tag, 02.12.2026"
    assert mine.body == (
        "1 Frist endet heute; 1 Vorfrist heute; 1 überfällige Aufgabe; 1 ungelesene Benachrichtigung."
    )
    assert mine.data == {"deadlines_today": 1, "pre_deadlines_today": 1, "tasks_overdue": 1, "unread": 1}
    assert Notification.objects.get(user=ben, kind="digest").body == "1 Frist endet heute."
    assert not Notification.objects.filter(user=idle).exists()


def _queries(people: int, day: dt.date) -> int:
    for i in range(people):
        person = UserFactory(email=f"p{day.day}-{i}@kanzlei.example")
        frist(f"F{i}", day, responsible=person)
    with CaptureQueriesContext(connection) as ctx:
        assert digest.send_morning_digest(day) == people
    return len(ctx.captured_queries)


def test_digest_reads_in_constant_queries():
    few = _queries(2, TODAY)
    many = _queries(6, TODAY + dt.timedelta(days=1))
    # Reading is constant; each digest sent costs only notify()'s own statements (its savepoints,
    # the key check, the insert and the live event), the same for every person.
    assert many - few == 4 * 7
    assert few - 2 * 7 == 6  # contributions (3), the people, the sent keys, the unread counts
