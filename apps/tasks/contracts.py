"""The typed contract of the Aufgaben operations: what callers send (input models, shared by the
tools, the REST API and the page forms) and what every surface answers with (output models; the
builders in `records.py` produce exactly these shapes, checked at the API boundary and in tests).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field

from apps.accounts.contracts import PersonRef
from apps.clients.contracts import CaseRef, ClientRef
from apps.core.contracts import (
    Date,
    Input,
    Output,
    PageInput,
    Position,
    legacy_alias,
    paged,
    partial_changes,
    query_field,
    safe_url,
    wrapped,
)
from apps.tasks.models import COMMENT_MAX, DESCRIPTION_MAX, TITLE_MAX

Priority = Literal["low", "normal", "high", "urgent"]
Category = Literal["open", "in_progress", "waiting", "done"]
Visibility = Literal["shared", "restricted", "private"]


# --- output -----------------------------------------------------------------------------------
class BoardOut(Output):
    id: int
    name: str
    visibility: Visibility
    owner_id: int | None
    sort_order: int


class StatusOut(Output):
    id: int
    key: str
    name: str
    category: Category
    sort_order: int
    is_done: bool


class BoardRef(Output):
    id: int
    name: str
    visibility: Visibility


class TaskOut(Output):
    id: int
    title: str
    description: str
    board: BoardRef
    status: StatusOut
    assignee: PersonRef | None
    priority: Priority
    due_date: dt.date | None
    follow_up_date: dt.date | None
    client_id: int | None
    client: ClientRef | None
    case_id: int | None
    case: CaseRef | None
    position: int
    erstellt_von: PersonRef | None
    created_by_service: str | None
    source_type: str
    source_id: str | None
    source_label: str
    source_url: str
    source_context_snapshot: dict[str, Any]
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime
    url: str


class CommentOut(Output):
    id: int
    task_id: int
    author_type: str
    author_name: str
    body: str
    created_at: dt.datetime


class BoardList(Output):
    boards: list[BoardOut]


class StatusList(Output):
    statuses: list[StatusOut]


class CommentList(Output):
    comments: list[CommentOut]


class TaskWithComments(Output):
    task: TaskOut
    comments: list[CommentOut]


class CommentResult(Output):
    comment: CommentOut
    created: bool = Field(description="False when the same text was already there (stored once).")


TaskPage = paged(TaskOut, "tasks")
TaskResult = wrapped(TaskOut, "task")
BoardResult = wrapped(BoardOut, "board")


# --- input ------------------------------------------------------------------------------------
class TaskFilter(PageInput):
    board_id: int | None = Field(
        default=None, validation_alias=legacy_alias("board_id", "board"), description="Only this board."
    )
    status_id: int | None = Field(
        default=None,
        validation_alias=legacy_alias("status_id", "status"),
        description="Only this status (column).",
    )
    status_key: str | None = Field(default=None, max_length=40, description="Only this status, by key.")
    category: Category | None = Field(default=None, description="Only statuses of this category.")
    unfinished: bool | None = Field(default=None, description="true: only tasks not done.")
    assignee_id: int | None = Field(
        default=None,
        validation_alias=legacy_alias("assignee_id", "assignee"),
        description="Only tasks assigned to this person.",
    )
    due_from: Date | None = Field(default=None, description="Due on or after (YYYY-MM-DD).")
    due_to: Date | None = Field(default=None, description="Due on or before (YYYY-MM-DD).")
    client_id: int | None = Field(default=None, description="Only tasks of this client (Mandant).")
    case_id: int | None = Field(default=None, description="Only tasks of this case (Akte).")
    query: str | None = query_field("Words in title, description, origin or client name.")


class TaskCreate(Input):
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    board_id: int | None = Field(default=None, description="Board; default: the first shared board.")
    status_id: int | None = Field(default=None, description="Column; default: the first open status.")
    assignee_id: int | None = None
    priority: Priority = "normal"
    due_date: Date | None = Field(default=None, description="YYYY-MM-DD")
    follow_up_date: Date | None = Field(default=None, description="Wiedervorlage date, YYYY-MM-DD")
    client_id: int | None = Field(
        default=None, description="The Mandant the task is about (id from mandanten_search)."
    )
    case_id: int | None = Field(
        default=None, description="The case (Akte) concerned (id from cases_list); its client is the task's."
    )
    source_label: str | None = Field(
        default=None, max_length=200, description="Where the task came from, for people."
    )
    source_url: safe_url(500) | None = Field(
        default=None, description="Link back to the origin: https://…, mailto:… or /path."
    )

    def service_kwargs(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


Clearable = Literal["description", "assignee_id", "due_date", "follow_up_date", "client_id", "case_id"]


class TaskUpdate(Input):
    """A partial change. Fields left out stay as they are; `clear_fields` empties fields (a tool
    sends every field, null meaning "unchanged"); on the REST surface an explicit null clears."""

    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    status_id: int | None = None
    board_id: int | None = None
    assignee_id: int | None = None
    priority: Priority | None = None
    due_date: Date | None = Field(default=None, description="YYYY-MM-DD")
    follow_up_date: Date | None = Field(default=None, description="YYYY-MM-DD")
    client_id: int | None = Field(default=None, description="Link the task to this client (Mandant).")
    case_id: int | None = Field(
        default=None, description="Link the task to this case (Akte); it must belong to the task's client."
    )
    clear_fields: list[Clearable] = Field(default_factory=list, description="Fields to empty.")
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse the change if the task's version differs."
    )

    def changes(self, *, explicit_null_clears: bool) -> dict[str, Any]:
        values = self.model_dump(exclude={"clear_fields", "expected_version"})
        changes = partial_changes(self, values, explicit_null_clears=explicit_null_clears)
        if "description" in changes and changes["description"] is None:
            changes["description"] = ""
        return changes


class TaskUpdateById(TaskUpdate):
    task_id: int


class TaskMove(Input):
    status_id: int | None = Field(default=None, description="Target column.")
    status_key: str | None = Field(
        default=None, max_length=40, description="Target column by key, e.g. erledigt."
    )
    board_id: int | None = Field(default=None, description="Target board.")
    position: Position | None = Field(default=None, description="Position in the column, 0 = top.")


class TaskMoveById(TaskMove):
    task_id: int


class TaskId(Input):
    task_id: int = Field(description="The task's id.")


class CommentCreate(Input):
    body: str = Field(min_length=1, max_length=COMMENT_MAX)


class CommentOnTask(CommentCreate):
    task_id: int


class BoardCreate(Input):
    name: str = Field(min_length=1, max_length=120)
    visibility: Literal["shared", "private"] = "shared"


class BoardCreateWithSharing(Input):
    """The REST surface may also create restricted boards shared with named people."""

    name: str = Field(min_length=1, max_length=120)
    visibility: Visibility = "shared"
    share_with: list[int] = Field(default_factory=list, description="People who see a restricted board.")
