"""The morning digest: one notification per person with something to do today (Fristen,
Vorfristen, overdue tasks, unread count), in their language, at 07:00 in their time zone, once a
day, at constant reading cost however many people get one; who turned it off gets none."""

import datetime as dt
import re
from types import SimpleNamespace

import pytest
from celery.signals import task_postrun
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.accounts import services
from apps.accounts.contracts import PreferencesUpdate
from apps.accounts.principal import Principal
from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.notifications import digest, jobs
from apps.notifications.models import Notification
from apps.notifications.services import notify
from apps.tasks.models import Board, Task
from tests.factories import UserFactory
from tests.notifications.fristen_rows import frist
from tests.waiting import wait_for
from tests.workers import in_process_worker

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


UTC = dt.UTC


def at_utc(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=UTC)


def test_due_days_follow_each_persons_time_zone():
    for zone in ("Europe/Berlin", "America/New_York", "Asia/Kolkata"):
        UserFactory(time_zone=zone)
    UserFactory(time_zone="Pacific/Auckland", morning_digest=False)  # opted out: its zone is not asked
    # 06:00 UTC: Berlin 07:00 and Kolkata 11:30 of 2 Dec; New York 01:00
    assert digest.due_days(at_utc(TODAY, 6)) == {TODAY: ["Asia/Kolkata", "Europe/Berlin"]}
    # 06:45 UTC: Kolkata is past noon (12:15), Berlin still morning (07:45)
    assert digest.due_days(at_utc(TODAY, 6, 45)) == {TODAY: ["Europe/Berlin"]}
    # 12:00 UTC: New York 07:00; Berlin's afternoon gets nothing
    assert digest.due_days(at_utc(TODAY, 12)) == {TODAY: ["America/New_York"]}
    assert digest.due_days(at_utc(TODAY, 1)) == {}  # Berlin 02:00, Kolkata 06:30, New York 20:00


def test_each_person_gets_the_digest_at_seven_in_their_zone_once(anna, ben):
    ben.time_zone = "America/New_York"
    ben.save(update_fields=["time_zone"])
    frist("Klage Schulz", TODAY, responsible=anna, deputy=ben)

    assert digest.send_due_digests(at_utc(TODAY, 5, 45)) == 0  # Berlin 06:45
    assert digest.send_due_digests(at_utc(TODAY, 6)) == 1  # Berlin 07:00: Anna
    assert list(Notification.objects.filter(kind="digest").values_list("user", flat=True)) == [anna.pk]
    assert digest.send_due_digests(at_utc(TODAY, 6, 15)) == 0  # the next tick: once a day
    assert digest.send_due_digests(at_utc(TODAY, 11, 45)) == 0  # New York 06:45
    assert digest.send_due_digests(at_utc(TODAY, 12)) == 1  # New York 07:00: Ben
    assert Notification.objects.get(user=ben, kind="digest").title == "Ihr Tag, 02.12.2026"
    assert digest.send_due_digests(at_utc(TODAY, 13)) == 0
    # Berlin's next morning is a new day
    frist("Einspruch Meier", TODAY + dt.timedelta(days=1), responsible=anna)
    assert digest.send_due_digests(at_utc(TODAY + dt.timedelta(days=1), 6)) == 1


def test_a_digest_missed_at_seven_comes_later_in_the_morning_never_in_the_afternoon(anna, ben):
    frist("Klage Schulz", TODAY, responsible=anna)
    assert digest.send_due_digests(at_utc(TODAY, 11, 30)) == 0  # Berlin 12:30: too late today
    assert digest.send_due_digests(at_utc(TODAY, 9)) == 1  # Berlin 10:00: the worker is back
    assert Notification.objects.filter(user=anna, kind="digest").count() == 1


def test_who_turned_the_digest_off_gets_none(client, anna, ben):
    frist("Klage Schulz", TODAY, responsible=anna, deputy=ben)
    client.force_login(ben)
    page = client.get(reverse("settings")).content.decode()
    assert re.search(r'name="morning_digest"[^>]*checked', page)  # on unless turned off
    response = client.post(reverse("settings"), {"language": "de", "time_zone": "Europe/Berlin"})
    assert response.status_code == 302
    ben.refresh_from_db()
    assert ben.morning_digest is False
    assert not re.search(
        r'name="morning_digest"[^>]*checked', client.get(reverse("settings")).content.decode()
    )

    assert digest.send_due_digests(at_utc(TODAY, 6)) == 1
    assert list(Notification.objects.filter(kind="digest").values_list("user", flat=True)) == [anna.pk]
    assert digest.send_morning_digest(TODAY) == 0  # a direct call asks nobody who opted out either

    client.post(reverse("settings"), {"language": "de", "time_zone": "Europe/Berlin", "morning_digest": "on"})
    ben.refresh_from_db()
    assert ben.morning_digest is True
    assert digest.send_due_digests(at_utc(TODAY, 6, 15)) == 1


def test_the_setting_takes_only_true_or_false(anna):
    with pytest.raises(InvalidInput) as error:
        services.update_preferences(
            Principal.for_user(anna),
            build(PreferencesUpdate, language="de", time_zone="Europe/Berlin", morning_digest="no"),
        )
    assert "morning_digest" in error.value.field_errors
    anna.refresh_from_db()
    assert anna.morning_digest is True


@pytest.mark.django_db(transaction=True)
def test_the_job_in_a_real_worker_sends_the_due_digest_once(anna, ben, monkeypatch):
    """Beat's tick through a real worker, delivered twice (at least once): one digest, at the
    moment it is due in Anna's zone; Ben in New York is still asleep."""
    ben.time_zone = "America/New_York"
    ben.save(update_fields=["time_zone"])
    frist("Klage Schulz", TODAY, responsible=anna, deputy=ben)
    monkeypatch.setattr(jobs, "timezone", SimpleNamespace(now=lambda: at_utc(TODAY, 6)))
    finished = []

    def count(sender=None, task_id=None, task=None, retval=None, **kwargs):
        if task is not None and task.name == jobs.DIGEST_TASK:
            finished.append(retval)

    task_postrun.connect(count, weak=False)
    try:
        with in_process_worker():
            jobs.send_morning_digest.delay()
            jobs.send_morning_digest.delay()
            assert wait_for(lambda: len(finished) == 2, timeout=30)
    finally:
        task_postrun.disconnect(count)
    assert sorted(finished) == [0, 1]
    assert list(Notification.objects.filter(kind="digest").values_list("user", flat=True)) == [anna.pk]
