"""Celery jobs of the Freigaben (thin: they call the services)."""

from celery import shared_task

EXPIRE_TASK = "apps.approvals.jobs.expire_staged_calls"


@shared_task(name=EXPIRE_TASK)
def expire_staged_calls() -> int:
    """Staged calls nobody decided in time answer `approval_expired`; their runs go on."""
    from apps.approvals.decisions import expire_due

    return expire_due()
