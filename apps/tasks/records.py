"""What the task outputs read (`contracts.TaskOut`), fetched in the same query."""

from __future__ import annotations

from django.db.models import Model, QuerySet

from apps.core.db.prepared import Prepared
from apps.tasks.models import Task, task_url

detail_url = task_url  # the task's page, by id


def with_relations(qs: QuerySet[Task]) -> QuerySet[Task]:
    """Everything `TaskOut` reads, fetched in the same query (no N+1 in lists)."""
    return qs.select_related(
        "board", "status", "assignee", "erstellt_von", "created_by_service", "client", "case"
    )


# The list's records: the tasks with their board and status joined, the other relations read in
# one query per kind that occurs (the people, the clients, the cases, the services). One query
# with all seven joins answered in 0.2 ms but took PostgreSQL 3 ms to plan (its join orders), on
# every page of every task list.
_WITH_BOARD_STATUS = Prepared(
    lambda ids: Task.objects.filter(pk__in=ids).select_related("board", "status"), ids=list
)
_RELATED = (  # (the relation, the column holding its id)
    ("assignee", "assignee_id"),
    ("erstellt_von", "erstellt_von_id"),
    ("client", "client_id"),
    ("case", "case_id"),
    ("created_by_service", "created_by_service_id"),
)


def records_by_ids(ids: list[int]) -> list[Task]:
    """Everything `TaskOut` reads of these tasks, in the order of `ids` (missing ones left out)."""
    tasks = _WITH_BOARD_STATUS(ids=ids)
    wanted: dict[type[Model], set[int]] = {}
    for attribute, column in _RELATED:
        model = Task._meta.get_field(attribute).related_model
        found = {getattr(task, column) for task in tasks} - {None}
        if found:
            wanted.setdefault(model, set()).update(found)
    loaded = {model: model._default_manager.in_bulk(sorted(pks)) for model, pks in wanted.items()}
    for task in tasks:
        for attribute, column in _RELATED:
            pk = getattr(task, column)
            if pk is not None:
                setattr(task, attribute, loaded[Task._meta.get_field(attribute).related_model][pk])
    by_id = {task.pk: task for task in tasks}
    return [by_id[i] for i in ids if i in by_id]
