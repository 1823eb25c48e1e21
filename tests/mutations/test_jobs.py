"""The retention job, through a real Celery worker, and its daily schedule."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.mutations.jobs import PRUNE_TASK, prune_mutation_events
from apps.mutations.models import MutationEvent
from apps.mutations.services import record_mutation
from tests.waiting import wait_for
from tests.workers import in_process_worker


@pytest.mark.django_db(transaction=True)
def test_prune_job_runs_in_a_real_worker(settings, layer):
    settings.CLAPILOT_MUTATION_RETENTION_DAYS = 3
    expired = record_mutation(audience="all", topic="a.expired")
    kept = record_mutation(audience="all", topic="a.kept")
    MutationEvent.objects.filter(pk=expired.pk).update(created_at=timezone.now() - timedelta(days=4))

    with in_process_worker():
        prune_mutation_events.delay()
        wait_for(lambda: not MutationEvent.objects.filter(pk=expired.pk).exists())

    assert list(MutationEvent.objects.values_list("id", flat=True)) == [kept.id]


@pytest.mark.django_db
def test_prune_is_scheduled_daily_once():
    from django_celery_beat.models import PeriodicTask

    from apps.core.services import ensure_periodic_tasks

    ensure_periodic_tasks()
    ensure_periodic_tasks()  # idempotent
    task = PeriodicTask.objects.get(task=PRUNE_TASK)
    assert task.enabled
    cron = task.crontab
    assert (cron.minute, cron.hour, cron.day_of_month, cron.month_of_year, cron.day_of_week) == (
        "30",
        "3",
        "*",
        "*",
        "*",
    )
    assert PeriodicTask.objects.filter(task=PRUNE_TASK).count() == 1
