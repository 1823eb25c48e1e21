"""Celery jobs of durable memory (thin: they call services). Scheduled by `periodic_jobs`."""

from celery import shared_task

CHECK_TASK = "apps.memory.jobs.check"
REEMBED_TASK = "apps.memory.jobs.reembed"


@shared_task(name=CHECK_TASK, acks_late=True)
def check(memory_id: int) -> str | None:
    """Embed a memory just stored and check it for near-duplicates and contradictions."""
    from apps.memory import checking

    return checking.run(int(memory_id))


@shared_task(name=REEMBED_TASK)
def reembed(batch: int = 200) -> int:
    """Memories whose check job was lost are checked; memories without a vector of the current
    embedding model get one (a failed provider at store time, a changed model); memories stored
    before subjects were read get their subject anchors; idempotent, bounded per run."""
    from apps.memory import maintenance

    return (
        maintenance.recheck(batch=batch)
        + maintenance.reembed(batch=batch)
        + maintenance.read_subjects(batch=batch)
    )
