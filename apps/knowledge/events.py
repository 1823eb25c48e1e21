"""Live events of the knowledge store: job progress for the people the job concerns (the person
who caused it and the owner of a personal file), never to everyone: titles can be private."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from apps.knowledge.models import IndexJob, KnowledgeFile, Scope
from apps.mutations import actions
from apps.mutations.services import record_mutation

TOPIC = "knowledge.jobs"


def _audience(file: KnowledgeFile, job: IndexJob | None) -> set[int]:
    ids: set[int] = set()
    if job is not None and job.requested_by_id:
        ids.add(job.requested_by_id)
    if file.scope == Scope.PERSONAL and file.owner_id:
        ids.add(file.owner_id)
    return ids


def job_changed(job: IndexJob, file: KnowledgeFile, announce_key: str = "") -> None:
    """Progress, or with `announce_key` a finished/failed job the page may announce."""
    record = {
        "id": job.pk,
        "file": file.ref,
        "title": file.title,
        "status": job.status,
        "percent": job.percent,
        "done": job.done_chunks,
        "total": job.total_chunks,
    }
    upsert = actions.upsert("knowledge-jobs", job.pk, record)
    if announce_key:
        upsert["announce_key"] = announce_key
    ui_actions = [upsert, actions.reload_topic(TOPIC)]
    for user in get_user_model().objects.filter(id__in=_audience(file, job)):
        record_mutation(
            audience="user", user=user, topic=f"{TOPIC}.progress", ui_actions=ui_actions, refresh_topic=TOPIC
        )
