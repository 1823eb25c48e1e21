"""Celery jobs of the agent: runs (and chat titles) execute in the worker, never in a request."""

import logging

from celery import shared_task

logger = logging.getLogger(__name__)

RUN_AGENT_TASK = "apps.agent.jobs.run_agent_job"


@shared_task(name=RUN_AGENT_TASK, acks_late=False)
def run_agent_job(run_id: int) -> str:
    """Thin: the runtime loads the run and does everything else. Not acked late: a redelivered
    run would call the model (and tools) twice."""
    # Imported when the job runs: the runtime writes through services, which queue this job.
    from apps.agent.runtime import run_agent

    return run_agent(run_id).status


TITLE_TASK = "apps.agent.jobs.title_job"


@shared_task(name=TITLE_TASK, acks_late=False)
def title_job(run_id: int) -> str:
    """Name the chat after its first answer (one model call); a failure keeps the fallback title."""
    from apps.agent.titles import generate

    try:
        return generate(int(run_id))
    except Exception:  # the title is a nicety: never retried, never shown as an error
        logger.exception("chat title for run %s failed", run_id)
        return "failed"


SWEEP_TASK = "apps.agent.jobs.sweep_lost_runs"


@shared_task(name=SWEEP_TASK, acks_late=False)
def sweep_lost_runs() -> dict:
    """Beat, every few seconds: finish runs whose worker died (lapsed lease) as `worker_lost`,
    re-enqueue or fail queued runs whose job was lost (apps.agent.leases)."""
    from apps.agent.leases import sweep

    return sweep()
