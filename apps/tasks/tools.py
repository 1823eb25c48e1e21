"""Agent tools of the Aufgaben domain (family `aufgaben`, never install-gated).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the output models' records. Live UI actions come from the mutation events
the services record; the dispatcher attaches them to the result.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.core.contracts import Input
from apps.core.origin import Origin
from apps.core.surfaces.api import listed
from apps.tasks import contracts as c
from apps.tasks import services
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, staged_tool, tool


@tool(name="aufgaben_list_boards", output=c.BoardList, surfaces=WITH_LIVE, read_only=True)
def list_boards(ctx: ToolContext, args: Input) -> dict:
    """List the task boards you can see."""
    return {"boards": [c.BoardOut.record(b) for b in services.list_boards(ctx.principal)]}


@tool(name="aufgaben_list_statuses", output=c.StatusList, surfaces=WITH_LIVE, read_only=True)
def list_statuses(ctx: ToolContext, args: Input) -> dict:
    """List the task statuses (board columns) in order, with their category (open, in_progress, waiting,
    done). Every category except done counts as unfinished."""
    return {"statuses": [c.StatusOut.record(s) for s in services.list_statuses()]}


@tool(name="aufgaben_list_tasks", output=c.TaskPage, surfaces=WITH_LIVE, read_only=True)
def list_tasks(ctx: ToolContext, args: c.TaskFilter) -> dict:
    """Search and list tasks with filters and pagination; returns full task records and the total count."""
    return listed("tasks", c.TaskOut.record, services.list_tasks(ctx.principal, args), args)


@tool(name="aufgaben_get_task", output=c.TaskWithComments, surfaces=WITH_LIVE, read_only=True)
def get_task(ctx: ToolContext, args: c.TaskId) -> dict:
    """Get one task with its comments."""
    task = services.get_task(ctx.principal, args.task_id)
    return {"task": c.TaskOut.record(task), "comments": [c.CommentOut.record(x) for x in task.comments.all()]}


@tool(name="aufgaben_create_task", output=c.TaskResult, surfaces=WITH_LIVE, read_only=False)
def create_task(ctx: ToolContext, args: c.TaskCreate) -> dict:
    """Create a task."""
    task = services.create_task(ctx.principal, args, origin=Origin.of_tool(ctx))
    return {"task": c.TaskOut.record(task)}


@tool(name="aufgaben_update_task", output=c.TaskResult, surfaces=WITH_LIVE, read_only=False)
def update_task(ctx: ToolContext, args: c.TaskUpdateById) -> dict:
    """Change some fields of a task; fields you leave out stay as they are. Use clear_fields to empty a
    field."""
    task = services.update_task(ctx.principal, args.task_id, args)
    return {"task": c.TaskOut.record(task)}


@tool(name="aufgaben_move_task", output=c.TaskResult, surfaces=WITH_LIVE, read_only=False)
def move_task(ctx: ToolContext, args: c.TaskMoveById) -> dict:
    """Move a task to another column or board."""
    task = services.move_task(ctx.principal, args.task_id, args)
    return {"task": c.TaskOut.record(task)}


def _delete_preview(args: c.TaskId, ctx: ToolContext) -> str:
    task = services.get_task(ctx.principal, args.task_id)
    return _("Deletes the task “%(task)s” on the board “%(board)s”.") % {
        "task": task.title,
        "board": task.board.name,
    }


def _board_of(args: c.TaskId, ctx: ToolContext) -> tuple[str, int]:
    return ("board", services.get_task(ctx.principal, args.task_id).board_id)


@staged_tool(
    name="aufgaben_delete_task",
    operation="delete",
    output=c.TaskDeleted,
    preview=_delete_preview,
    scope=_board_of,
)
def delete_task(ctx: ToolContext, args: c.TaskId) -> dict:
    """Delete a task for good."""
    return {"deleted": services.delete_task(ctx.principal, args.task_id)}


@tool(name="aufgaben_add_comment", output=c.CommentResult, surfaces=WITH_LIVE, read_only=False)
def add_comment(ctx: ToolContext, args: c.CommentOnTask) -> dict:
    """Add a comment to a task (stored once even if you send the same text again)."""
    comment, created = services.add_comment(ctx.principal, args.task_id, args, origin=Origin.of_tool(ctx))
    return {"comment": c.CommentOut.record(comment), "created": created}


@tool(name="aufgaben_create_board", output=c.BoardResult, read_only=False)
def create_board(ctx: ToolContext, args: c.BoardCreate) -> dict:
    """Create a task board."""
    board = services.create_board(ctx.principal, args)
    return {"board": c.BoardOut.record(board)}
