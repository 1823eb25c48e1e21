"""Agent tools of the Aufgaben domain (family `aufgaben`, core: never install-gated).

Thin on purpose: parse arguments, call the service, shape the output. Live UI actions come from
the mutation events the services record; the dispatcher attaches them to the result.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from apps.tasks import services
from apps.tasks.models import COMMENT_MAX, DESCRIPTION_MAX, TITLE_MAX, Comment, Task
from apps.tasks.records import board_record, comment_record, status_record, task_record
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.tools.results import page_output

FAMILY = "aufgaben"
Priority = Literal["low", "normal", "high", "urgent"]
Category = Literal["open", "in_progress", "waiting", "done"]


def _source_type(ctx: ToolContext) -> str:
    return Task.Source.API if ctx.surface == "api" else Task.Source.AGENT


class NoArgs(Args):
    pass


@tool(
    name="aufgaben_list_boards",
    family=FAMILY,
    read_only=True,
    description="List the task boards you can see.",
)
def list_boards(ctx: ToolContext, args: NoArgs) -> dict:
    return {"boards": [board_record(b) for b in services.list_boards(ctx.principal)]}


@tool(
    name="aufgaben_list_statuses",
    family=FAMILY,
    read_only=True,
    description="List the task statuses (board columns) in order, with their category "
    "(open, in_progress, waiting, done). Every category except done counts as unfinished.",
)
def list_statuses(ctx: ToolContext, args: NoArgs) -> dict:
    return {"statuses": [status_record(s) for s in services.list_statuses()]}


class ListTasksArgs(Args):
    board_id: int | None = Field(default=None, description="Only this board.")
    status_id: int | None = Field(default=None, description="Only this status (column).")
    status_key: str | None = Field(default=None, max_length=40, description="Only this status, by key.")
    category: Category | None = Field(default=None, description="Only statuses of this category.")
    unfinished: bool | None = Field(default=None, description="true: only tasks not done.")
    assignee_id: int | None = Field(default=None, description="Only tasks assigned to this person.")
    due_from: dt.date | None = Field(default=None, description="Due on or after (YYYY-MM-DD).")
    due_to: dt.date | None = Field(default=None, description="Due on or before (YYYY-MM-DD).")
    client_id: int | None = Field(default=None, description="Only tasks of this client (Mandant).")
    query: str | None = Field(
        default=None, max_length=200, description="Words in title, description, origin or client name."
    )
    limit: int = Field(default=50, ge=1, le=services.MAX_PAGE, description="Page size.")
    offset: int = Field(default=0, ge=0, description="Skip this many tasks (pagination).")


@tool(
    name="aufgaben_list_tasks",
    family=FAMILY,
    read_only=True,
    description="Search and list tasks with filters and pagination; returns full task records and the total count.",
)
def list_tasks(ctx: ToolContext, args: ListTasksArgs) -> dict:
    tasks, total = services.list_tasks(ctx.principal, **args.model_dump())
    return page_output("tasks", [task_record(t) for t in tasks], total, limit=args.limit, offset=args.offset)


class TaskIdArgs(Args):
    task_id: int = Field(description="The task's id.")


@tool(name="aufgaben_get_task", family=FAMILY, read_only=True, description="Get one task with its comments.")
def get_task(ctx: ToolContext, args: TaskIdArgs) -> dict:
    task = services.get_task(ctx.principal, args.task_id)
    return {"task": task_record(task), "comments": [comment_record(c) for c in task.comments.all()]}


class CreateTaskArgs(Args):
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    board_id: int | None = Field(default=None, description="Board; default: the first shared board.")
    status_id: int | None = Field(default=None, description="Column; default: the first open status.")
    assignee_id: int | None = None
    priority: Priority = "normal"
    due_date: dt.date | None = Field(default=None, description="YYYY-MM-DD")
    follow_up_date: dt.date | None = Field(default=None, description="Wiedervorlage date, YYYY-MM-DD")
    client_id: int | None = Field(
        default=None, description="The Mandant the task is about (id from mandanten_search)."
    )
    source_label: str | None = Field(
        default=None, max_length=200, description="Where the task came from, for people."
    )
    source_url: str | None = Field(default=None, max_length=500, description="Link back to the origin.")


@tool(name="aufgaben_create_task", family=FAMILY, read_only=False, description="Create a task.")
def create_task(ctx: ToolContext, args: CreateTaskArgs) -> dict:
    data = args.model_dump()
    task = services.create_task(
        ctx.principal,
        **{k: v for k, v in data.items() if v is not None},
        source_type=_source_type(ctx),
        source_context_snapshot={"run_id": ctx.run_id, "session_id": ctx.session_id} if ctx.run_id else None,
    )
    return {"task": task_record(task)}


Clearable = Literal["description", "assignee_id", "due_date", "follow_up_date", "client_id"]


class UpdateTaskArgs(Args):
    task_id: int
    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    status_id: int | None = None
    board_id: int | None = None
    assignee_id: int | None = None
    priority: Priority | None = None
    due_date: dt.date | None = Field(default=None, description="YYYY-MM-DD")
    follow_up_date: dt.date | None = Field(default=None, description="YYYY-MM-DD")
    client_id: int | None = Field(default=None, description="Link the task to this client (Mandant).")
    clear_fields: list[Clearable] = Field(default_factory=list, description="Fields to empty.")
    expected_version: int | None = Field(
        default=None, description="Refuse the change if the task's version differs."
    )


@tool(
    name="aufgaben_update_task",
    family=FAMILY,
    read_only=False,
    description="Change some fields of a task; fields you leave out stay as they are. "
    "Use clear_fields to empty a field.",
)
def update_task(ctx: ToolContext, args: UpdateTaskArgs) -> dict:
    changes = {
        k: v
        for k, v in args.model_dump(exclude={"task_id", "clear_fields", "expected_version"}).items()
        if v is not None
    }
    for name in args.clear_fields:
        changes[name] = "" if name == "description" else None
    task = services.update_task(ctx.principal, args.task_id, changes, expected_version=args.expected_version)
    return {"task": task_record(task)}


class MoveTaskArgs(Args):
    task_id: int
    status_id: int | None = Field(default=None, description="Target column.")
    status_key: str | None = Field(
        default=None, max_length=40, description="Target column by key, e.g. erledigt."
    )
    board_id: int | None = Field(default=None, description="Target board.")
    position: int | None = Field(default=None, ge=0, description="Position in the column, 0 = top.")


@tool(
    name="aufgaben_move_task",
    family=FAMILY,
    read_only=False,
    description="Move a task to another column or board.",
)
def move_task(ctx: ToolContext, args: MoveTaskArgs) -> dict:
    status_id = args.status_id
    if args.status_key is not None:
        status_id = services.get_status(key=args.status_key).pk
    task = services.move_task(
        ctx.principal, args.task_id, status_id=status_id, board_id=args.board_id, position=args.position
    )
    return {"task": task_record(task)}


@tool(name="aufgaben_delete_task", family=FAMILY, read_only=False, description="Delete a task for good.")
def delete_task(ctx: ToolContext, args: TaskIdArgs) -> dict:
    return {"deleted": services.delete_task(ctx.principal, args.task_id)}


class CommentArgs(Args):
    task_id: int
    body: str = Field(min_length=1, max_length=COMMENT_MAX)


@tool(
    name="aufgaben_add_comment",
    family=FAMILY,
    read_only=False,
    description="Add a comment to a task (stored once even if you send the same text again).",
)
def add_comment(ctx: ToolContext, args: CommentArgs) -> dict:
    comment, created = services.add_comment(
        ctx.principal, args.task_id, body=args.body, author_type=Comment.AuthorType.AGENT
    )
    return {"comment": comment_record(comment), "created": created}


class CreateBoardArgs(Args):
    name: str = Field(min_length=1, max_length=120)
    visibility: Literal["shared", "private"] = "shared"


@tool(name="aufgaben_create_board", family=FAMILY, read_only=False, description="Create a task board.")
def create_board(ctx: ToolContext, args: CreateBoardArgs) -> dict:
    board = services.create_board(ctx.principal, name=args.name, visibility=args.visibility)
    return {"board": board_record(board)}
