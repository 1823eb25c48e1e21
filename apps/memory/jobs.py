"""Celery jobs of durable memory (thin: they call services). Scheduled by `periodic_jobs`."""

from celery import shared_task

REEMBED_TASK = "apps.memory.jobs.reembed"


@shared_task(name=REEMBED_TASK)
def reembed(batch: int = 200) -> int:
    """Memories without a vector of the current embedding model get one (a failed provider at
    store time, a changed model); idempotent, bounded per run."""
    from apps.memory import maintenance

    return maintenance.reembed(batch=batch)
