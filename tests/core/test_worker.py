"""Background work through a real Celery worker (not eager), over the configured broker."""

import pytest

from apps.core.models import Heartbeat
from apps.ops.jobs import heartbeat
from clapilot.celery import app
from tests.waiting import wait_for
from tests.workers import in_process_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_heartbeat_job_runs_in_a_real_worker():
    assert not app.conf.task_always_eager
    with in_process_worker():
        heartbeat.delay(component="worker-test")
        wait_for(Heartbeat.objects.filter(component="worker-test").exists)
    beat = Heartbeat.objects.get(component="worker-test")
    assert beat.count == 1


def test_beat_schedule_contains_the_heartbeat():
    from django_celery_beat.models import PeriodicTask

    from apps.core.services import ensure_periodic_tasks
    from apps.ops.apps import HEARTBEAT_TASK

    ensure_periodic_tasks()
    ensure_periodic_tasks()  # idempotent
    tasks = PeriodicTask.objects.filter(task=HEARTBEAT_TASK)
    assert tasks.count() == 1 and tasks.get().enabled
