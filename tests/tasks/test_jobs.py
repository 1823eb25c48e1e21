"""The Wiedervorlage job, through a real Celery worker."""

import datetime as dt
import time

import pytest
from celery.contrib.testing.worker import start_worker

from apps.tasks.jobs import resurface_follow_ups
from apps.tasks.models import Task
from clapilot.celery import app

pytestmark = pytest.mark.django_db(transaction=True)


def test_due_follow_ups_come_back_through_the_worker(make_task, statuses):
    due = make_task("Wiedervorlage fällig", status="wiedervorlage", follow_up_date=dt.date(2020, 1, 1))
    later = make_task("Noch nicht", status="wiedervorlage", follow_up_date=dt.date(2999, 1, 1))
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        resurface_follow_ups.delay()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and Task.objects.get(pk=due.pk).status_id != statuses["offen"].pk:
            time.sleep(0.2)
    assert Task.objects.get(pk=due.pk).status == statuses["offen"]
    assert Task.objects.get(pk=later.pk).status == statuses["wiedervorlage"]
