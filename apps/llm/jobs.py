"""Celery job of the model layer: the capability probe runs in the worker, never in a request."""

from celery import shared_task

from apps.llm.probe import probe_models


@shared_task(name="apps.llm.jobs.probe_models_job")
def probe_models_job(model_ids: list[int]) -> int:
    """Thin: probe each model of the ids (one tiny request each); answers how many were probed."""
    return len(probe_models(model_ids))
