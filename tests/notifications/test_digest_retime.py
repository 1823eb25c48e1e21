"""An instance from before the per-zone digest keeps its 07:00 beat row (ensure_periodic_tasks only
creates missing rows): the migration moves it to every quarter hour, unless an admin retimed it."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django_celery_beat.models import CrontabSchedule, PeriodicTask

pytestmark = pytest.mark.django_db

migration = importlib.import_module("apps.notifications.migrations.0002_digest_every_quarter_hour")


def _row(minute: str, hour: str) -> PeriodicTask:
    PeriodicTask.objects.filter(name=migration.NAME).delete()
    crontab, _ = CrontabSchedule.objects.get_or_create(minute=minute, hour=hour, timezone="Europe/Berlin")
    return PeriodicTask.objects.create(
        name=migration.NAME, task="apps.notifications.jobs.send_morning_digest", crontab=crontab
    )


def test_the_old_seven_oclock_row_runs_every_quarter_hour():
    row = _row("0", "7")
    migration.retime(apps, None)
    row.refresh_from_db()
    assert (row.crontab.minute, row.crontab.hour) == ("*/15", "*")


def test_a_row_an_admin_retimed_is_left_alone():
    row = _row("30", "6")
    migration.retime(apps, None)
    row.refresh_from_db()
    assert (row.crontab.minute, row.crontab.hour) == ("30", "6")
