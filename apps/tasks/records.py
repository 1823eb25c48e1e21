"""What the task outputs read (`contracts.TaskOut`), fetched in the same query."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.tasks.models import Task, task_url

detail_url = task_url  # the task's page, by id


def with_relations(qs: QuerySet[Task]) -> QuerySet[Task]:
    """Everything `TaskOut` reads, fetched in the same query (no N+1 in lists)."""
    return qs.select_related(
        "board", "status", "assignee", "erstellt_von", "created_by_service", "client", "case"
    )
