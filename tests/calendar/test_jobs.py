"""Reminders: the service (idempotent, series move on, private stays private) and the job through
a real Celery worker."""

import datetime as dt

import pytest
from django.apps import apps
from django.utils import timezone

from apps.calendar import services
from apps.calendar.contracts import EventCreate, EventUpdate
from apps.calendar.jobs import send_due_reminders
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from apps.notifications.models import Notification
from tests.waiting import wait_for
from tests.workers import in_process_worker


def test_periodic_job_runs_every_minute():
    periodic_jobs = apps.get_app_config("office_calendar").periodic_jobs  # declared on the AppConfig
    assert [(j.task, j.every_seconds) for j in periodic_jobs] == [
        ("apps.calendar.jobs.send_due_reminders", 60),
        ("apps.calendar.jobs.send_deadline_reminders", 60),  # a Vorfrist reminder at its minute
    ]


@pytest.mark.django_db
def test_reminders_go_to_attendees_once(as_anna, anna, ben):
    start = timezone.now() + dt.timedelta(minutes=10)
    event = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Mandantengespräch",
            start=start.isoformat(),
            attendee_ids=[ben.pk],
            remind_minutes_before=15,
        ),
    )
    later = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Später",
            start=(start + dt.timedelta(days=1)).isoformat(),
            remind_minutes_before=15,
        ),
    )
    assert services.send_due_reminders() == 1
    assert services.send_due_reminders() == 0  # idempotent
    note = Notification.objects.get()
    assert note.user == ben and note.kind == "calendar.reminder" and note.title == "Mandantengespräch"
    event.refresh_from_db()
    later.refresh_from_db()
    assert event.reminded_at is not None and later.reminded_at is None


@pytest.mark.django_db
def test_private_reminder_only_to_owner_and_series_moves_on(as_anna, anna):
    start = timezone.now() + dt.timedelta(minutes=5)
    event = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Privat",
            start=start.isoformat(),
            visibility="private",
            rrule="FREQ=DAILY;COUNT=3",
            remind_minutes_before=10,
        ),
    )
    assert services.send_due_reminders() == 1
    assert Notification.objects.get().user == anna
    event.refresh_from_db()
    assert event.reminded_at is None and event.remind_at > timezone.now() + dt.timedelta(hours=23)
    assert services.send_due_reminders(now=event.remind_at + dt.timedelta(seconds=1)) == 1


@pytest.mark.django_db
def test_editing_the_title_does_not_remind_again(as_anna, anna):
    start = timezone.now() + dt.timedelta(minutes=5)
    event = services.create_event(
        as_anna, build(EventCreate, title="A", start=start.isoformat(), remind_minutes_before=10)
    )
    services.send_due_reminders()
    services.update_event(as_anna, event.pk, build(EventUpdate, **{"title": "B"}))
    assert services.send_due_reminders() == 0
    services.update_event(
        as_anna, event.pk, build(EventUpdate, **{"start": (start + dt.timedelta(minutes=1)).isoformat()})
    )
    assert services.send_due_reminders() == 1  # a new moment: remind again


@pytest.mark.django_db(transaction=True)
def test_due_reminders_are_sent_through_the_worker(anna, as_anna):
    start = timezone.now() + dt.timedelta(minutes=3)
    event = services.create_event(
        as_anna, build(EventCreate, title="Finanzamt", start=start.isoformat(), remind_minutes_before=30)
    )
    with in_process_worker():
        send_due_reminders.delay()
        wait_for(lambda: CalendarEvent.objects.get(pk=event.pk).reminded_at is not None)
    assert CalendarEvent.objects.get(pk=event.pk).reminded_at is not None
    assert Notification.objects.filter(user=anna, kind="calendar.reminder").count() == 1
