"""Celery jobs of learning (thin: they take ids and call the services), and the agent's answer
hook that queues the extraction."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

EXTRACT_TASK = "apps.learning.jobs.extract_job"
CURATE_TASK = "apps.learning.jobs.curate_job"


@shared_task(name=EXTRACT_TASK, acks_late=True)
def extract_job(run_id: int) -> str:
    """Propose learning from one finished chat run; a redelivery finds the run's log row."""
    from apps.learning.extraction import extract_from_run

    return extract_from_run(int(run_id)).outcome


@shared_task(name=CURATE_TASK)
def curate_job() -> str:
    """One curator pass (scheduled by beat: `periodic_jobs` in apps.py)."""
    from apps.learning.curator import curate

    return curate().outcome


def after_answer(run) -> None:
    """Declared for `agent.answer_hooks`: a chat run (not a background one) answered; queue the
    extraction after the answer's commit. Whether a model is chosen is the job's question, so
    a skip is logged where the admin sees it."""
    if run.kind != "chat":
        return
    run_id = run.pk
    transaction.on_commit(lambda: extract_job.delay(run_id))
