"""The one wire shape of a task: tools, REST API, pages and live events all send this record."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.clients.records import case_ref, client_ref
from apps.core.records import IdUrl, attrs, iso, stamps
from apps.tasks.models import Board, Comment, Task, TaskStatus


def with_relations(qs: QuerySet[Task]) -> QuerySet[Task]:
    """Everything `task_record` reads, fetched in the same query (no N+1 in lists)."""
    return qs.select_related(
        "board", "status", "assignee", "erstellt_von", "created_by_service", "client", "case"
    )


detail_url = IdUrl("tasks:detail")


def _person(user) -> dict | None:
    return {"id": user.pk, "name": user.get_full_name(), "email": user.email} if user else None


def board_record(board: Board) -> dict:
    return {"id": board.pk, **attrs(board, "name", "visibility", "owner_id", "sort_order")}


def status_record(status: TaskStatus) -> dict:
    return {"id": status.pk, **attrs(status, "key", "name", "category", "sort_order", "is_done")}


def task_record(task: Task) -> dict:
    return {
        "id": task.pk,
        **attrs(task, "title", "description"),
        "board": {"id": task.board_id, "name": task.board.name, "visibility": task.board.visibility},
        "status": status_record(task.status),
        "assignee": _person(task.assignee),
        "priority": task.priority,
        "due_date": iso(task.due_date),
        "follow_up_date": iso(task.follow_up_date),
        "client_id": task.client_id,
        "client": client_ref(task.client),
        "case_id": task.case_id,
        "case": case_ref(task.case) if task.case_id else None,
        "position": task.position,
        "erstellt_von": _person(task.erstellt_von),
        "created_by_service": task.created_by_service.name if task.created_by_service else None,
        **attrs(task, "source_type", "source_id", "source_label", "source_url", "source_context_snapshot"),
        **stamps(task),
        "url": detail_url(task.pk),
    }


def comment_record(comment: Comment) -> dict:
    return {
        "id": comment.pk,
        **attrs(comment, "task_id", "author_type", "author_name", "body"),
        "created_at": comment.created_at.isoformat(),
    }
