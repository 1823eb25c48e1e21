"""Celery jobs of running the instance (thin: they call services).

Every job of every app is delivered at least once: acknowledged late (after it ran), and delivered
again when its worker process died mid-job (`CELERY_TASK_REJECT_ON_WORKER_LOST`, the broker's
leases in clapilot/broker.py). A job must therefore be idempotent: running it twice leaves the
same state as once (the document workflow matches what it filed before, reminders claim their
row, extraction overwrites its result). A job that must never run twice opts out with
`acks_late=False` and accepts that a killed worker loses it (the agent's runs).
"""

from celery import shared_task

from apps.core import services
from apps.ops.apps import HEARTBEAT_TASK


@shared_task(name=HEARTBEAT_TASK)
def heartbeat(component: str = "beat") -> int:
    """Fired by beat; proves beat, broker, worker and database work together."""
    return services.record_heartbeat(component).count
