"""Fristen reminders: Vorfrist and due-day reminders to the responsible person and the deputy,
the overdue escalation (responsible first, admins later), each sent once however often the job
runs, and the job through a real Celery worker."""

import datetime as dt

import pytest
from celery.signals import task_postrun

from apps.calendar import deadline_reminders
from apps.calendar.jobs import DEADLINE_REMINDER_TASK, send_deadline_reminders
from apps.calendar.models import PreDeadline
from apps.notifications.models import Notification
from tests.factories import UserFactory
from tests.notifications.fristen_rows import at, frist
from tests.waiting import wait_for
from tests.workers import in_process_worker

TODAY = dt.date(2026, 12, 2)  # a Wednesday


def sent() -> list[tuple[str, str, str]]:
    return sorted(Notification.objects.values_list("user__email", "kind", "title"))


@pytest.fixture
def admin(db):
    return UserFactory(
        email="chefin@kanzlei.example", full_name="Clara Chef", role="admin", is_superuser=True
    )


@pytest.mark.django_db
def test_vorfrist_and_due_day_go_to_responsible_and_deputy_once(anna, ben, admin):
    einspruch = frist(
        "Einspruch Meier", TODAY + dt.timedelta(days=7), responsible=anna, deputy=ben, pre=[TODAY]
    )
    frist("Klage Schulz", TODAY, responsible=anna, deputy=ben)
    frist("Erledigt", TODAY, responsible=anna, status="done")
    frist("Gestrichen", TODAY + dt.timedelta(days=3), responsible=anna, pre=[TODAY], status="cancelled")
    frist(
        "Vorfrist morgen", TODAY + dt.timedelta(days=9), responsible=anna, pre=[TODAY + dt.timedelta(days=1)]
    )

    assert deadline_reminders.send_deadline_reminders(now=at(TODAY)) == 4
    assert deadline_reminders.send_deadline_reminders(now=at(TODAY, 15)) == 0  # once
    assert sent() == [
        ("anna@kanzlei.example", "deadline.due", "Frist heute: Klage Schulz"),
        ("anna@kanzlei.example", "deadline.pre_deadline", "Vorfrist: Einspruch Meier"),
        ("ben@kanzlei.example", "deadline.due", "Frist heute: Klage Schulz"),
        ("ben@kanzlei.example", "deadline.pre_deadline", "Vorfrist: Einspruch Meier"),
    ]
    note = Notification.objects.get(user=anna, kind="deadline.pre_deadline")
    assert note.url == f"/kalender/{einspruch.pk}/" and "09.12.2026" in note.body and "§ 355 AO" in note.body
    assert note.data == {"event_id": einspruch.pk, "due": "2026-12-09", "pre_deadline": "2026-12-02"}
    assert PreDeadline.objects.get(event=einspruch).reminded_at is not None
    # tomorrow: the next Vorfrist and Klage Schulz is overdue; nothing of today repeated
    before = set(Notification.objects.values_list("id", flat=True))
    assert deadline_reminders.send_deadline_reminders(now=at(TODAY + dt.timedelta(days=1))) == 2
    new = Notification.objects.exclude(id__in=before)
    assert sorted(new.values_list("kind", "title")) == [
        ("deadline.overdue", "Frist überschritten: Klage Schulz"),
        ("deadline.pre_deadline", "Vorfrist: Vorfrist morgen"),
    ]


@pytest.mark.django_db
def test_reminders_speak_the_recipients_language(anna, ben):
    ben.language = "it"
    ben.save(update_fields=["language"])
    frist("Ricorso", TODAY, responsible=anna, deputy=ben)
    deadline_reminders.send_deadline_reminders(now=at(TODAY))
    assert Notification.objects.get(user=anna).title == "Frist heute: Ricorso"
    assert Notification.objects.get(user=ben).title == "Scadenza oggi: Ricorso"


@pytest.mark.django_db
def test_inactive_people_get_nothing(anna, ben):
    ben.is_active = False
    ben.save(update_fields=["is_active"])
    frist("Berufung", TODAY, responsible=anna, deputy=ben)
    deadline_reminders.send_deadline_reminders(now=at(TODAY))
    assert [u for u, *_ in sent()] == ["anna@kanzlei.example"]


@pytest.mark.django_db
def test_overdue_escalates_to_the_responsible_person_then_the_admins(anna, ben, admin):
    frist("Widerspruch Huber", TODAY, responsible=anna, deputy=ben)
    deadline_reminders.send_deadline_reminders(now=at(TODAY))
    Notification.objects.all().delete()

    day_after = TODAY + dt.timedelta(days=1)
    assert deadline_reminders.send_deadline_reminders(now=at(day_after)) == 1
    assert sent() == [("anna@kanzlei.example", "deadline.overdue", "Frist überschritten: Widerspruch Huber")]
    assert deadline_reminders.send_deadline_reminders(now=at(day_after, 18)) == 0

    later = TODAY + dt.timedelta(days=deadline_reminders.ESCALATE_AFTER_DAYS)
    assert deadline_reminders.send_deadline_reminders(now=at(later)) == 1
    escalation = Notification.objects.get(user=admin)
    assert escalation.kind == "deadline.escalated"
    assert escalation.title == "Eskalation: Frist überschritten: Widerspruch Huber"
    assert "Anna Berger" in escalation.body
    assert deadline_reminders.send_deadline_reminders(now=at(later + dt.timedelta(days=3))) == 0


@pytest.mark.django_db
def test_a_frist_nobody_active_answers_for_goes_to_the_admins_at_once(anna, admin):
    anna.is_active = False
    anna.save(update_fields=["is_active"])
    frist("Verwaist", TODAY - dt.timedelta(days=1), responsible=anna)
    frist("Ohne Verantwortliche", TODAY - dt.timedelta(days=1))
    assert deadline_reminders.send_deadline_reminders(now=at(TODAY)) == 2
    assert {kind for _, kind, _ in sent()} == {"deadline.escalated"}


@pytest.mark.django_db
def test_a_private_frist_escalates_to_its_owner_only(anna, ben, admin):
    frist("Privat", TODAY - dt.timedelta(days=3), responsible=anna, visibility="private", owner=anna)
    deadline_reminders.send_deadline_reminders(now=at(TODAY))
    assert {user for user, *_ in sent()} == {"anna@kanzlei.example"}
    assert {kind for _, kind, _ in sent()} == {"deadline.overdue", "deadline.escalated"}


@pytest.mark.django_db
def test_marking_done_stops_the_escalation(anna, admin):
    event = frist("Erledigt bald", TODAY - dt.timedelta(days=1), responsible=anna)
    deadline_reminders.send_deadline_reminders(now=at(TODAY))
    event.status = "done"
    event.save(update_fields=["status"])
    assert deadline_reminders.send_deadline_reminders(now=at(TODAY + dt.timedelta(days=2))) == 0


@pytest.mark.django_db(transaction=True)
def test_the_job_run_twice_in_a_real_worker_sends_each_reminder_once(anna, ben, admin, monkeypatch):
    """At-least-once delivery: the same job twice (a redelivery, or beat firing while the first
    still runs) leaves one notification per reminder."""
    frist("Einspruch", TODAY + dt.timedelta(days=7), responsible=anna, deputy=ben, pre=[TODAY])
    frist("Klage", TODAY, responsible=anna, deputy=ben)
    frist("Überfällig", TODAY - dt.timedelta(days=2), responsible=anna)
    monkeypatch.setattr(deadline_reminders, "office_today", lambda now=None: TODAY)
    finished = []

    def count(sender=None, task_id=None, task=None, retval=None, **kwargs):
        if task is not None and task.name == DEADLINE_REMINDER_TASK:
            finished.append(retval)

    task_postrun.connect(count, weak=False)
    try:
        with in_process_worker():
            send_deadline_reminders.delay()
            send_deadline_reminders.delay()
            assert wait_for(lambda: len(finished) == 2, timeout=30)
    finally:
        task_postrun.disconnect(count)
    assert sorted(finished) == [0, 6]
    assert sent() == [
        ("anna@kanzlei.example", "deadline.due", "Frist heute: Klage"),
        ("anna@kanzlei.example", "deadline.overdue", "Frist überschritten: Überfällig"),
        ("anna@kanzlei.example", "deadline.pre_deadline", "Vorfrist: Einspruch"),
        ("ben@kanzlei.example", "deadline.due", "Frist heute: Klage"),
        ("ben@kanzlei.example", "deadline.pre_deadline", "Vorfrist: Einspruch"),
        ("chefin@kanzlei.example", "deadline.escalated", "Eskalation: Frist überschritten: Überfällig"),
    ]


@pytest.mark.django_db
def test_an_admin_responsible_for_the_frist_is_not_escalated_to_again(admin, anna):
    frist("Eigene Frist der Chefin", TODAY - dt.timedelta(days=3), responsible=admin)
    assert deadline_reminders.send_deadline_reminders(now=at(TODAY)) == 1
    assert sent() == [
        ("chefin@kanzlei.example", "deadline.overdue", "Frist überschritten: Eigene Frist der Chefin")
    ]
