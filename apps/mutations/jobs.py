"""Celery jobs of the mutations app (thin: they call services)."""

from datetime import timedelta

from celery import shared_task
from django.conf import settings

from apps.mutations import services

PRUNE_TASK = "apps.mutations.jobs.prune_mutation_events"

# Daily, at night in the instance's time zone (registered by core's ensure_periodic_tasks).


@shared_task(name=PRUNE_TASK)
def prune_mutation_events() -> int:
    """Events are a replay buffer; keep CLAPILOT_MUTATION_RETENTION_DAYS of them."""
    return services.prune_events(timedelta(days=settings.CLAPILOT_MUTATION_RETENTION_DAYS))
