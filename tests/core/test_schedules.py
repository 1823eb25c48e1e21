"""Schedules are declared by their apps (`DomainApp.periodic_jobs`) and written to beat by one
writer (`ensure_periodic_tasks`); a `protected` job may be paused or retimed, never deleted."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db.models import ProtectedError
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from apps.core.models import ProtectedJob
from apps.core.plugins import PeriodicJob
from apps.core.services import ensure_periodic_tasks

pytestmark = pytest.mark.django_db


@pytest.fixture
def declared(monkeypatch):
    config = apps.get_app_config("tasks")
    jobs = [
        PeriodicJob("Test: geschützt", "apps.tasks.jobs.resurface", every_seconds=77, protected=True),
        PeriodicJob("Test: frei", "apps.tasks.jobs.resurface", crontab="5 4 * * *"),
    ]
    monkeypatch.setattr(config, "periodic_jobs", [*config.periodic_jobs, *jobs])
    return jobs


def test_a_protected_job_can_be_retimed_and_paused_but_not_deleted(declared):
    ensure_periodic_tasks()
    ensure_periodic_tasks()  # idempotent
    task = PeriodicTask.objects.get(name="Test: geschützt")
    assert ProtectedJob.objects.filter(task=task, app="tasks").count() == 1
    task.interval = IntervalSchedule.objects.create(every=3600, period=IntervalSchedule.SECONDS)
    task.enabled = False
    task.save()
    with pytest.raises(ProtectedError):
        task.delete()
    with pytest.raises(ProtectedError):
        PeriodicTask.objects.filter(name="Test: geschützt").delete()
    ensure_periodic_tasks()  # the admin's timing stands
    task.refresh_from_db()
    assert task.interval.every == 3600 and not task.enabled


def test_an_unprotected_job_may_be_deleted_and_comes_back_at_the_next_start(declared):
    ensure_periodic_tasks()
    free = PeriodicTask.objects.get(name="Test: frei")
    assert not ProtectedJob.objects.filter(task=free).exists()
    free.delete()
    ensure_periodic_tasks()
    assert PeriodicTask.objects.get(name="Test: frei").crontab.hour == "4"


def test_the_bundled_protected_jobs_are_protected():
    ensure_periodic_tasks()
    protected = {p.task.name for p in ProtectedJob.objects.select_related("task")}
    assert "Lernen: Kurator prüft neue Fakten" in protected
