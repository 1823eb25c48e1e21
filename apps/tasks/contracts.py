"""The typed contract of the Aufgaben operations, declared once: what callers send (input
models, shared by the tools, the REST API, the page forms and filters, and taken as they are by
the services) and what every surface answers with (output models that build themselves from rows).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field, model_validator

from apps.accounts.contracts import AsPerson, AsServiceName
from apps.clients.contracts import AsCase, AsClient
from apps.core.contracts import (
    Date,
    Input,
    NullIsUnchanged,
    Output,
    PageInput,
    Position,
    legacy_alias,
    paged,
    query_field,
    safe_url,
    wrapped,
)
from apps.core.outputs import RowOutput
from apps.tasks.models import COMMENT_MAX, DESCRIPTION_MAX, TITLE_MAX

Priority = Literal["low", "normal", "high", "urgent"]
Category = Literal["open", "in_progress", "waiting", "done"]
Visibility = Literal["shared", "restricted", "private"]


# --- output -----------------------------------------------------------------------------------
# Each output builds itself from its row (`RowOutput.of` / `.record`): the one declaration of the
# wire shape that tools, REST, pages and live events send.
class BoardOut(RowOutput):
    id: int
    name: str
    visibility: Visibility
    owner_id: int | None
    sort_order: int


class StatusOut(RowOutput):
    id: int
    key: str
    name: str
    category: Category
    sort_order: int
    is_done: bool


class BoardRef(RowOutput):
    id: int
    name: str
    visibility: Visibility


class TaskOut(RowOutput):
    id: int
    title: str
    description: str
    board: BoardRef
    status: StatusOut
    assignee: AsPerson | None
    priority: Priority
    due_date: dt.date | None
    follow_up_date: dt.date | None
    client_id: int | None
    client: AsClient | None
    case_id: int | None
    case: AsCase | None
    position: int
    erstellt_von: AsPerson | None
    created_by_service: AsServiceName | None
    source_type: str
    source_id: str | None
    source_label: str
    source_url: str
    source_context_snapshot: dict[str, Any]
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime
    url: str


class CommentOut(RowOutput):
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


class TaskDeleted(Output):
    """`aufgaben_delete_task`: the id of the deleted task."""

    deleted: int


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


class TaskPageFilter(TaskFilter):
    """The task pages' filters: `TaskFilter` under the pages' query names (`?client=`, `?case=`,
    `?open=1`) and with the person picker's `?assignee=me` (the caller) and `?assignee=none`
    (nobody). Never a REST or tool contract."""

    client_id: int | None = Field(default=None, validation_alias=legacy_alias("client_id", "client"))
    case_id: int | None = Field(default=None, validation_alias=legacy_alias("case_id", "case"))
    unfinished: bool | None = Field(default=None, validation_alias=legacy_alias("unfinished", "open"))
    mine: bool = False
    nobody: bool = False

    @model_validator(mode="before")
    @classmethod
    def _picker(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in ("assignee", "assignee_id"):
                picked = data.get(key)
                if picked in ("me", "none"):
                    data = {k: v for k, v in data.items() if k != key}
                    data["mine" if picked == "me" else "nobody"] = True
        return data


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


class FiledTask(TaskCreate):
    """A task filed by the system from something else (a document, a team-chat message, the demo):
    its column by key and its origin are part of the input. Never a surface's contract."""

    status_key: str | None = Field(default=None, max_length=40)
    source_type: Literal["manual", "agent", "team_chat", "document", "email", "api"] | None = None
    source_id: str | None = Field(default=None, max_length=200)
    source_context_snapshot: dict[str, Any] | None = None


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

    def changes(self) -> dict[str, Any]:
        """The fields sent (an explicit null included: it empties the field), and every field of
        `clear_fields` as None."""
        sent = self.model_fields_set - {"clear_fields", "expected_version", "task_id"}
        return {name: getattr(self, name) for name in sent} | dict.fromkeys(self.clear_fields)


class TaskUpdateById(NullIsUnchanged, TaskUpdate):
    """The tool's form of a change: its strict schema sends every field, null meaning "unchanged"."""

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


class BoardChange(Input):
    """An admin's edit of a board: its name and its place in the board list."""

    name: str = Field(min_length=1, max_length=120)
    sort_order: int = Field(default=0, ge=-(2**31), le=2**31 - 1)


class StatusSave(Input):
    """A workspace-global column (admins): its key, label, category and place."""

    key: str = Field(min_length=1, max_length=40)
    name: str = Field(min_length=1, max_length=60)
    category: Category
    sort_order: int = Field(default=0, ge=-(2**31), le=2**31 - 1)


class BoardCreateWithSharing(Input):
    """The REST surface may also create restricted boards shared with named people."""

    name: str = Field(min_length=1, max_length=120)
    visibility: Visibility = "shared"
    share_with: list[int] = Field(default_factory=list, description="People who see a restricted board.")
