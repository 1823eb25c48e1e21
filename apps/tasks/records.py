"""The one wire shape of a task: tools, REST API, pages and live events all send this record."""

from __future__ import annotations

from django.db.models import QuerySet
from django.urls import reverse

from apps.clients.records import case_ref, client_ref
from apps.tasks.models import Board, Comment, Task, TaskStatus


def with_relations(qs: QuerySet[Task]) -> QuerySet[Task]:
    """Everything `task_record` reads, fetched in the same query (no N+1 in lists)."""
    return qs.select_related(
        "board", "status", "assignee", "erstellt_von", "created_by_service", "client", "case"
    )


def detail_url(task_id: int) -> str:
    # reverse() once per process and fill in the id: lists serialize hundreds of records.
    global _DETAIL_URL
    if _DETAIL_URL is None:
        _DETAIL_URL = reverse("tasks:detail", args=[987654321])
    return _DETAIL_URL.replace("987654321", str(task_id))


_DETAIL_URL: str | None = None


def _person(user) -> dict | None:
    return {"id": user.pk, "name": user.get_full_name(), "email": user.email} if user else None


def board_record(board: Board) -> dict:
    return {
        "id": board.pk,
        "name": board.name,
        "visibility": board.visibility,
        "owner_id": board.owner_id,
        "sort_order": board.sort_order,
    }


def status_record(status: TaskStatus) -> dict:
    return {
        "id": status.pk,
        "key": status.key,
        "name": status.name,
        "category": status.category,
        "sort_order": status.sort_order,
        "is_done": status.is_done,
    }


def task_record(task: Task) -> dict:
    return {
        "id": task.pk,
        "title": task.title,
        "description": task.description,
        "board": {"id": task.board_id, "name": task.board.name, "visibility": task.board.visibility},
        "status": status_record(task.status),
        "assignee": _person(task.assignee),
        "priority": task.priority,
        "due_date": task.due_date.isoformat() if task.due_date else None,
        "follow_up_date": task.follow_up_date.isoformat() if task.follow_up_date else None,
        "client_id": task.client_id,
        "client": client_ref(task.client),
        "case_id": task.case_id,
        "case": case_ref(task.case) if task.case_id else None,
        "position": task.position,
        "erstellt_von": _person(task.erstellt_von),
        "created_by_service": task.created_by_service.name if task.created_by_service else None,
        "source_type": task.source_type,
        "source_id": task.source_id,
        "source_label": task.source_label,
        "source_url": task.source_url,
        "source_context_snapshot": task.source_context_snapshot,
        "version": task.version,
        "created_at": task.created_at.isoformat(),
        "updated_at": task.updated_at.isoformat(),
        "url": detail_url(task.pk),
    }


def comment_record(comment: Comment) -> dict:
    return {
        "id": comment.pk,
        "task_id": comment.task_id,
        "author_type": comment.author_type,
        "author_name": comment.author_name,
        "body": comment.body,
        "created_at": comment.created_at.isoformat(),
    }
