"""What the task outputs read (`contracts.TaskOut`), fetched in the same query."""

from __future__ import annotations

from typing import Any, cast

from django.db.models import ForeignKey, QuerySet

from apps.core.db.prepared import Prepared
from apps.tasks.models import Task, task_url

detail_url = task_url  # the task's page, by id


# What `TaskOut` reads besides the board and the status: rows of other tables a task names.
NAMED = ("assignee", "erstellt_von", "created_by_service", "client", "case")


def with_relations(qs: QuerySet[Task]) -> QuerySet[Task]:
    """Everything `TaskOut` reads, fetched in the same query (no N+1 in lists)."""
    return qs.select_related("board", "status", *NAMED)


# The list's records: the tasks with their board and status joined, the rows they name read in one
# query per model that occurs (the people, the clients, the cases, the services). One query with
# all seven joins answered in 0.2 ms but took PostgreSQL 3 ms to plan (its join orders), on every
# page of every task list.
_WITH_BOARD_STATUS = Prepared(
    lambda ids: Task.objects.filter(pk__in=ids).select_related("board", "status"), ids=list
)


def records_by_ids(ids: list[int]) -> list[Task]:
    """Everything `TaskOut` reads of these tasks, in the order of `ids` (missing ones left out)."""
    tasks = _WITH_BOARD_STATUS(ids=ids)
    fields = [cast("ForeignKey[Any, Any]", Task._meta.get_field(name)) for name in NAMED]
    wanted: dict[Any, set[int]] = {}
    for field in fields:
        wanted.setdefault(field.related_model, set()).update(getattr(t, field.attname) for t in tasks)
    loaded = {
        model: model._default_manager.in_bulk(pks - {None}) for model, pks in wanted.items() if pks - {None}
    }
    for task in tasks:
        for field in fields:
            pk = getattr(task, field.attname)
            if pk is not None:
                setattr(task, field.name, loaded[field.related_model][pk])
    by_id = {task.pk: task for task in tasks}
    return [by_id[i] for i in ids if i in by_id]
