"""Celery job of the agent: runs execute in the worker, never in a request."""

from celery import shared_task

RUN_AGENT_TASK = "apps.agent.jobs.run_agent_job"


@shared_task(name=RUN_AGENT_TASK, acks_late=False)
def run_agent_job(run_id: int) -> str:
    """Thin: the runtime loads the run and does everything else. Not acked late: a redelivered
    run would call the model (and tools) twice."""
    # Imported when the job runs: the runtime writes through services, which queue this job.
    from apps.agent.runtime import run_agent

    return run_agent(run_id).status
