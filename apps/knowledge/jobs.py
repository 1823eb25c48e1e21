"""Celery jobs of the knowledge store (thin: they take ids and call the services)."""

from celery import shared_task

INDEX_TASK = "apps.knowledge.jobs.index_file"
RECONCILE_TASK = "apps.knowledge.jobs.reconcile_model"


@shared_task(name=INDEX_TASK, acks_late=True)
def index_file(job_id: int) -> str | None:
    """Chunk and embed one file; a redelivered message finds the job final or resumes it."""
    from apps.knowledge import indexing

    job = indexing.run_job(int(job_id))
    return job.status if job is not None else None


@shared_task(name=RECONCILE_TASK)
def reconcile_model() -> int:
    """Files indexed with an older model are queued again (never searched with the new one)."""
    from apps.knowledge import services

    return services.reconcile_model()
