"""Background work through a real Celery worker (not eager), over the configured broker."""

import time

import pytest
from celery.contrib.testing.worker import start_worker

from apps.core.jobs import heartbeat
from apps.core.models import Heartbeat
from clapilot.celery import app

pytestmark = pytest.mark.django_db(transaction=True)


def test_heartbeat_job_runs_in_a_real_worker():
    assert not app.conf.task_always_eager
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        heartbeat.delay(component="worker-test")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if Heartbeat.objects.filter(component="worker-test").exists():
                break
            time.sleep(0.2)
    beat = Heartbeat.objects.get(component="worker-test")
    assert beat.count == 1


def test_beat_schedule_contains_the_heartbeat():
    from django_celery_beat.models import PeriodicTask

    from apps.core.services import HEARTBEAT_TASK, ensure_periodic_tasks

    ensure_periodic_tasks()
    ensure_periodic_tasks()  # idempotent
    tasks = PeriodicTask.objects.filter(task=HEARTBEAT_TASK)
    assert tasks.count() == 1 and tasks.get().enabled
