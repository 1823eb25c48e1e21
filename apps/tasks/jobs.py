"""Celery jobs of the Aufgaben domain (thin: they call services)."""

from celery import shared_task

from apps.core.services import PeriodicJob
from apps.tasks import services

RESURFACE_TASK = "apps.tasks.jobs.resurface_follow_ups"

PERIODIC_JOBS = [PeriodicJob("Aufgaben: Wiedervorlage fällig", RESURFACE_TASK, crontab="0 6 * * *")]


@shared_task(name=RESURFACE_TASK)
def resurface_follow_ups() -> int:
    """Every morning: tasks whose follow-up date has come go back to the first open column."""
    return services.resurface_follow_ups()
