"""Agent tools of the Aufgaben domain (family `aufgaben`, never install-gated).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the records. Live UI actions come from the mutation events
the services record; the dispatcher attaches them to the result.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.core.api import listed
from apps.core.contracts import Input
from apps.tasks import contracts as c
from apps.tasks import services
from apps.tasks.models import Comment, Task
from apps.tasks.records import board_record, comment_record, status_record, task_record
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, tool


def _source_type(ctx: ToolContext) -> str:
    return Task.Source.API if ctx.surface == "api" else Task.Source.AGENT


@tool(name="aufgaben_list_boards", surfaces=WITH_LIVE, read_only=True)
def list_boards(ctx: ToolContext, args: Input) -> dict:
    """List the task boards you can see."""
    return {"boards": [board_record(b) for b in services.list_boards(ctx.principal)]}


@tool(name="aufgaben_list_statuses", surfaces=WITH_LIVE, read_only=True)
def list_statuses(ctx: ToolContext, args: Input) -> dict:
    """List the task statuses (board columns) in order, with their category (open, in_progress, waiting,
    done). Every category except done counts as unfinished."""
    return {"statuses": [status_record(s) for s in services.list_statuses()]}


@tool(name="aufgaben_list_tasks", surfaces=WITH_LIVE, read_only=True)
def list_tasks(ctx: ToolContext, args: c.TaskFilter) -> dict:
    """Search and list tasks with filters and pagination; returns full task records and the total count."""
    return listed("tasks", task_record, services.list_tasks(ctx.principal, **args.model_dump()), args)


@tool(name="aufgaben_get_task", surfaces=WITH_LIVE, read_only=True)
def get_task(ctx: ToolContext, args: c.TaskId) -> dict:
    """Get one task with its comments."""
    task = services.get_task(ctx.principal, args.task_id)
    return {"task": task_record(task), "comments": [comment_record(x) for x in task.comments.all()]}


@tool(name="aufgaben_create_task", surfaces=WITH_LIVE, read_only=False)
def create_task(ctx: ToolContext, args: c.TaskCreate) -> dict:
    """Create a task."""
    task = services.create_task(
        ctx.principal,
        **args.service_kwargs(),
        source_type=_source_type(ctx),
        source_context_snapshot={"run_id": ctx.run_id, "session_id": ctx.session_id} if ctx.run_id else None,
    )
    return {"task": task_record(task)}


@tool(name="aufgaben_update_task", surfaces=WITH_LIVE, read_only=False)
def update_task(ctx: ToolContext, args: c.TaskUpdateById) -> dict:
    """Change some fields of a task; fields you leave out stay as they are. Use clear_fields to empty a
    field."""
    changes = args.changes(explicit_null_clears=False)
    changes.pop("task_id", None)
    task = services.update_task(ctx.principal, args.task_id, changes, expected_version=args.expected_version)
    return {"task": task_record(task)}


@tool(name="aufgaben_move_task", surfaces=WITH_LIVE, read_only=False)
def move_task(ctx: ToolContext, args: c.TaskMoveById) -> dict:
    """Move a task to another column or board."""
    task = services.move_task(ctx.principal, **args.model_dump())
    return {"task": task_record(task)}


def _delete_preview(args: c.TaskId, ctx: ToolContext) -> str:
    task = services.get_task(ctx.principal, args.task_id)
    return _("Deletes the task “%(task)s” on the board “%(board)s”.") % {
        "task": task.title,
        "board": task.board.name,
    }


def _board_of(args: c.TaskId, ctx: ToolContext) -> tuple[str, int]:
    return ("board", services.get_task(ctx.principal, args.task_id).board_id)


@tool(
    name="aufgaben_delete_task",
    read_only=False,
    operation="delete",
    default="stage",
    preview=_delete_preview,
    scope=_board_of,
)
def delete_task(ctx: ToolContext, args: c.TaskId) -> dict:
    """Delete a task for good."""
    return {"deleted": services.delete_task(ctx.principal, args.task_id)}


@tool(name="aufgaben_add_comment", surfaces=WITH_LIVE, read_only=False)
def add_comment(ctx: ToolContext, args: c.CommentOnTask) -> dict:
    """Add a comment to a task (stored once even if you send the same text again)."""
    comment, created = services.add_comment(
        ctx.principal, args.task_id, body=args.body, author_type=Comment.AuthorType.AGENT
    )
    return {"comment": comment_record(comment), "created": created}


@tool(name="aufgaben_create_board", read_only=False)
def create_board(ctx: ToolContext, args: c.BoardCreate) -> dict:
    """Create a task board."""
    board = services.create_board(ctx.principal, name=args.name, visibility=args.visibility)
    return {"board": board_record(board)}
