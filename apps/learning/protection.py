"""The curator is a protected bundled automation: when beat's entry for it is registered
(`ensure_periodic_tasks` at start), learning's settings row points at it with PROTECT, so the
admin can pause or retime it but not delete it."""

from __future__ import annotations


def protect_curator_task(sender, instance, created, **kwargs) -> None:
    from apps.learning.apps import CURATOR_JOB
    from apps.learning.models import LearningSettings

    if instance.name != CURATOR_JOB:
        return
    settings = LearningSettings.current()
    if settings.curator_task_id != instance.pk:
        settings.curator_task = instance
        settings.save(update_fields=["curator_task", "updated_at"])
