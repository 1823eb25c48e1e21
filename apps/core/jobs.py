"""Celery jobs of the core app (thin: they call services)."""

from celery import shared_task
from django.conf import settings

from apps.core import services
from apps.core.services import HEARTBEAT_TASK, PeriodicJob

PERIODIC_JOBS = [
    PeriodicJob(
        "Housekeeping heartbeat",
        HEARTBEAT_TASK,
        every_seconds=settings.CLAPILOT_HEARTBEAT_SECONDS,
        kwargs={"component": "beat"},
    ),
]


@shared_task(name="apps.core.jobs.heartbeat")
def heartbeat(component: str = "beat") -> int:
    """Fired by beat; proves beat, broker, worker and database work together."""
    return services.record_heartbeat(component).count
