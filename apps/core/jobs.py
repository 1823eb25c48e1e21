"""Celery jobs of the core app (thin: they call services)."""

from celery import shared_task

from apps.core import services


@shared_task(name="apps.core.jobs.heartbeat")
def heartbeat(component: str = "beat") -> int:
    """Fired by beat; proves beat, broker, worker and database work together."""
    return services.record_heartbeat(component).count
