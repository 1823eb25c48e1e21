"""Reminders on time: the Fristen reminder job ticks every minute (it ticked every 15), so a
Vorfrist reminder arrives at its minute; an idle tick costs a few indexed queries, however many
Fristen are open."""

import datetime as dt

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.calendar import deadline_reminders
from apps.calendar.jobs import DEADLINE_REMINDER_TASK
from tests.notifications.fristen_rows import at, frist

pytestmark = pytest.mark.django_db
TODAY = dt.date(2026, 12, 2)
TICK = 60


def _lateness(created: dt.datetime, every: int) -> float:
    """Seconds from a reminder becoming due to the next tick of a job run every `every` seconds."""
    since_midnight = created.hour * 3600 + created.minute * 60 + created.second
    return (-since_midnight) % every


def test_the_job_ticks_every_minute():
    jobs = {j.task: j for j in apps.get_app_config("office_calendar").periodic_jobs}
    assert jobs[DEADLINE_REMINDER_TASK].every_seconds == TICK
    made = dt.datetime(2026, 12, 2, 10, 0, 30)  # a same-day Vorfrist entered just after a tick
    assert _lateness(made, 900) == 870  # before: 14.5 minutes late
    assert _lateness(made, TICK) == 30  # now: within the minute


def test_a_vorfrist_of_today_goes_out_on_the_next_tick(anna):
    frist("Einspruch Meier", TODAY + dt.timedelta(days=3), responsible=anna, pre=[TODAY])
    assert deadline_reminders.send_deadline_reminders(now=at(TODAY, 10)) == 1


def test_an_idle_tick_is_cheap_and_constant(anna):
    for i in range(30):
        frist(f"Später {i}", TODAY + dt.timedelta(days=20 + i), responsible=anna)
    deadline_reminders.send_deadline_reminders(now=at(TODAY, 10))
    with CaptureQueriesContext(connection) as ctx:
        assert deadline_reminders.send_deadline_reminders(now=at(TODAY, 10)) == 0
    assert len(ctx.captured_queries) <= 3
