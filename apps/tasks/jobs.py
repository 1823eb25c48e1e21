"""Celery jobs of the Aufgaben domain (thin: they call services)."""

from celery import shared_task

from apps.tasks import services

RESURFACE_TASK = "apps.tasks.jobs.resurface_follow_ups"


@shared_task(name=RESURFACE_TASK)
def resurface_follow_ups() -> int:
    """Every morning: tasks whose follow-up date has come go back to the first open column."""
    return services.resurface_follow_ups()
