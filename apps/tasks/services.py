"""The only place that changes Aufgaben state. Tools, REST API, pages, admin and jobs call these
functions with a `Principal` and plain values; visibility, validation, audit and live events are
enforced here once.

Invisible rows answer exactly like missing ones (`task_not_found`), so ids cannot be probed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, F, IntegerField, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.accounts.services import active_person_id
from apps.clients import visibility as client_visibility
from apps.clients.services import resolve_case, resolve_client
from apps.core import validation
from apps.core.db.lookup import get_by_id
from apps.core.db.ordering import make_room
from apps.core.db.paging import ids_and_total, page_and_total, page_query
from apps.core.db.prepared import SHAPE, Prepared
from apps.core.db.saving import save_unique
from apps.core.db.search import search
from apps.core.db.versioning import Versioned
from apps.core.errors import Forbidden, InvalidInput
from apps.core.origin import INTERNAL, Origin
from apps.tasks import events
from apps.tasks.contracts import (
    BoardChange,
    BoardCreate,
    BoardCreateWithSharing,
    CommentCreate,
    FiledTask,
    StatusSave,
    TaskCreate,
    TaskFilter,
    TaskMove,
    TaskOut,
    TaskPageFilter,
    TaskUpdate,
)
from apps.tasks.errors import BoardNotFound, StatusNotFound, TaskNotFound
from apps.tasks.models import Board, Comment, Task, TaskStatus
from apps.tasks.records import records_by_ids, with_relations
from apps.tasks.visibility import (
    EVERYONE,
    share_board,
    viewers,
    visible_board,
    visible_board_ids,
    visible_board_list,
    visible_boards,
)

TASK_VERSION = Versioned(
    "task", TaskOut.record, gettext_lazy("The task was changed by someone else in the meantime.")
)


# --- validation helpers -----------------------------------------------------------------------
def _require_user(principal: Principal) -> None:
    if principal.user is None:
        raise Forbidden(_("Only a person can do this."))


def _require_admin(principal: Principal) -> None:
    if principal.user is None or not principal.user.is_admin:
        raise Forbidden(_("Only administrators can change the task statuses."))


# --- boards and statuses ----------------------------------------------------------------------
def list_boards(principal: Principal) -> list[Board]:
    return visible_board_list(principal)


def get_board(principal: Principal, board_id: int) -> Board:
    """A visible board by the id a caller sent; a missing, invisible or malformed id answer alike."""
    try:
        board = visible_board(principal, int(board_id))
    except (TypeError, ValueError):
        board = None
    if board is None:
        raise BoardNotFound(_("There is no board with id %(id)s.") % {"id": board_id})
    return board


def default_board(principal: Principal) -> Board:
    """Where a task goes when the caller names no board: the first shared board, else any."""
    boards = visible_boards(principal)
    board = boards.filter(visibility=Board.Visibility.SHARED).first() or boards.first()
    if board is None:
        raise BoardNotFound(_("There is no board yet. Create one first."))
    return board


@transaction.atomic
def create_board(principal: Principal, data: BoardCreate | BoardCreateWithSharing) -> Board:
    visibility = data.visibility
    share_with = data.share_with if isinstance(data, BoardCreateWithSharing) else []
    name = data.name
    if visibility != Board.Visibility.SHARED and principal.user is None:
        raise Forbidden(_("Only a person can own a private board."))
    board = Board.objects.create(
        name=name,
        visibility=visibility,
        owner=principal.user if visibility != Board.Visibility.SHARED else None,
    )
    if visibility == Board.Visibility.RESTRICTED:
        ids = list(share_with)
        known = set(get_user_model().objects.filter(id__in=ids, is_active=True).values_list("id", flat=True))
        if known != set(ids):
            raise validation.invalid(
                "share_with", _("unknown people: %(ids)s") % {"ids": sorted(set(ids) - known)}
            )
        share_board(board, ids)
    events.boards_changed(board, "aufgaben.board.created")
    return board


@transaction.atomic
def change_board(principal: Principal, board_id: int, data: BoardChange) -> Board:
    """Rename or reorder a board (admins); its viewers' board lists reload."""
    _require_admin(principal)
    board = Board.objects.select_for_update().filter(pk=board_id).first()
    if board is None:
        raise BoardNotFound(_("There is no such board."))
    board.name, board.sort_order = data.name, data.sort_order
    board.save(update_fields=["name", "sort_order"])
    events.boards_changed(board, "aufgaben.board.changed")
    return board


def list_statuses() -> list[TaskStatus]:
    return list(TaskStatus.objects.all())


def get_status(status_id: int | None = None, key: str | None = None) -> TaskStatus:
    try:
        if key is not None:
            return TaskStatus.objects.get(key=key)
        if status_id is not None:
            return TaskStatus.objects.get(pk=status_id)
    except (TaskStatus.DoesNotExist, TypeError, ValueError):
        pass
    raise StatusNotFound(
        _("There is no status “%(status)s”.") % {"status": key if key is not None else status_id}
    )


# Where every new task starts (`create_task`), compiled once (apps.core.db.prepared).
_FIRST_OF_CATEGORY = Prepared(lambda category: TaskStatus.objects.filter(category=category)[:1], category=str)


def first_status(category: str = TaskStatus.Category.OPEN) -> TaskStatus:
    status = _FIRST_OF_CATEGORY.first(category=str(category)) or TaskStatus.objects.first()
    if status is None:
        raise StatusNotFound(_("No task statuses are configured."))
    return status


@transaction.atomic
def save_status(principal: Principal, data: StatusSave, status_id: int | None = None) -> TaskStatus:
    _require_admin(principal)
    status = TaskStatus(pk=status_id) if status_id else TaskStatus()
    if status_id and not TaskStatus.objects.filter(pk=status_id).exists():
        raise StatusNotFound(_("There is no status “%(status)s”.") % {"status": status_id})
    status.key, status.name = data.key.lower(), data.name
    status.category, status.sort_order = data.category, data.sort_order
    save_unique(status, lambda: validation.invalid("key", _("is already used by another status")))
    events.statuses_changed()
    return status


@transaction.atomic
def delete_status(principal: Principal, status_id: int) -> None:
    _require_admin(principal)
    status = get_status(status_id)
    if status.tasks.exists():
        raise InvalidInput(_("Move the tasks out of “%(name)s” before deleting it.") % {"name": status.name})
    status.delete()
    events.statuses_changed()


# --- reading tasks ----------------------------------------------------------------------------
def visible_tasks(principal: Principal) -> QuerySet[Task]:
    """Tasks on boards the principal sees. The board ids are resolved first (an office has tens of
    boards, not thousands): a plain `IN (ids)` keeps the big task queries on simple index scans."""
    return Task.objects.filter(board_id__in=visible_board_ids(principal))


def get_task(principal: Principal, task_id: int, *, for_update: bool = False) -> Task:
    qs = with_relations(visible_tasks(principal))
    if for_update:
        qs = qs.select_for_update(of=("self",))
    return get_by_id(qs, task_id, TaskNotFound, _("There is no task with id %(id)s."))


def list_tasks(principal: Principal, filters: TaskFilter | None = None) -> tuple[list[Task], int]:
    """A filtered page of visible tasks and the total count (two queries, whatever the page size:
    the page's ids with the total, then their rows); without filters the first page of all."""
    filters = filters if filters is not None else TaskFilter()
    if _unfiltered(filters):
        ids, total = _unfiltered_page(principal, offset=filters.offset, limit=filters.limit)
        return _by_ids(ids), total
    qs = visible_tasks(principal)
    if filters.board_id is not None:
        qs = qs.filter(board=get_board(principal, filters.board_id))
    if filters.status_id is not None or filters.status_key is not None:
        qs = qs.filter(status=get_status(filters.status_id, filters.status_key))
    if filters.category is not None:
        qs = qs.filter(status__category=filters.category)
    if filters.unfinished is True:
        qs = qs.exclude(status__category=TaskStatus.Category.DONE)
    qs = _assigned(principal, qs, filters)
    if filters.due_from is not None:
        qs = qs.filter(due_date__gte=filters.due_from)
    if filters.due_to is not None:
        qs = qs.filter(due_date__lte=filters.due_to)
    if filters.client_id is not None:
        qs = qs.filter(client=resolve_client(principal, filters.client_id))
    if filters.case_id is not None:
        qs = qs.filter(case=resolve_case(principal, filters.case_id))
    if filters.query:
        qs = _search(principal, qs, filters.query)
    limit, offset = filters.limit, filters.offset
    # Pick the page on narrow rows first, then load the full records of just those ids: sorting
    # thousands of joined, wide rows is what makes a big board slow.
    ids, total = ids_and_total(qs, TASK_ORDER, offset=offset, limit=limit)
    return _by_ids(ids), total


# The list the apps and tools ask for most (no filter but the page), compiled once per page size
# and number of boards (apps.core.db.prepared); the same queries as the general path above.
TASK_ORDER = ("status__sort_order", "position", "id")
_UNFILTERED_PAGE = Prepared(
    lambda board_ids, offset, limit: page_query(
        Task.objects.filter(board_id__in=board_ids), TASK_ORDER, offset=offset, limit=limit
    ),
    board_ids=list,
    offset=SHAPE,
    limit=SHAPE,
)


def _unfiltered(filters: TaskFilter) -> bool:
    return type(filters) is TaskFilter and not filters.model_dump(
        exclude={"limit", "offset"}, exclude_none=True
    )


def _unfiltered_page(principal: Principal, *, offset: int, limit: int) -> tuple[list[int], int]:
    board_ids = visible_board_ids(principal)
    rows = _UNFILTERED_PAGE(board_ids=board_ids, offset=offset, limit=limit)
    return page_and_total(rows, Task.objects.filter(board_id__in=board_ids), offset=offset)


def _by_ids(ids: list[int]) -> list[Task]:
    """The full records (everything `TaskOut` reads) of these tasks, in this order."""
    return records_by_ids(ids)


def open_task_counts(principal: Principal, case_ids: Iterable[int]) -> dict[int, int]:
    """Unfinished visible tasks per case id (the client page's open items): two queries."""
    rows = (
        visible_tasks(principal)
        .filter(case_id__in=list(case_ids))
        .exclude(status__category=TaskStatus.Category.DONE)
        .order_by()
        .values("case_id")
        .annotate(n=Count("id"))
        .values_list("case_id", "n")
    )
    return dict(rows)


def _assigned(principal: Principal, qs: QuerySet[Task], filters: TaskFilter) -> QuerySet[Task]:
    """The assignee filter; the pages' picker also offers "me" and "nobody" (`TaskPageFilter`)."""
    if isinstance(filters, TaskPageFilter) and filters.nobody:
        return qs.filter(assignee__isnull=True)
    if isinstance(filters, TaskPageFilter) and filters.mine:
        return qs.filter(assignee=principal.user) if principal.user else qs.none()
    if filters.assignee_id is not None:
        return qs.filter(assignee_id=filters.assignee_id)
    return qs


def _search(principal: Principal, qs: QuerySet[Task], query: str) -> QuerySet[Task]:
    """Words in title, description or origin, or naming the task's Mandant."""
    text = validation.text(query, "query", max_length=200)
    clients = search(client_visibility.visible_clients(principal), text).values("id")
    return search(qs, text) | qs.filter(client_id__in=clients)


def board_columns(
    principal: Principal, board: Board | int, filters: TaskFilter, *, per_column: int = 25
) -> tuple[Board, list[dict[str, Any]]]:
    """The Kanban view of one board: every status column with its first `per_column` cards and
    its full count. Two queries over the tasks (the statuses with their counts, the cards),
    whatever the board's size or number of columns.
    Of the filters, the assignee and the words apply. `board` is an id, or a board the caller
    already read through `list_boards` / `get_board` (visible to `principal`: not read again)."""
    if not isinstance(board, Board):
        board = get_board(principal, board)
    unfiltered = Task.objects.filter(board_id=board.pk)
    qs = _assigned(principal, unfiltered, filters)
    if filters.query:
        qs = _search(principal, qs, filters.query)
    if qs is unfiltered:  # the board as it opens: statements compiled once per process
        statuses = _BOARD_STATUSES(board_id=board.pk)
        ranked = _BOARD_CARDS(board_id=board.pk, per_column=per_column)
    else:
        statuses_qs, cards_qs = _board_querysets(qs, per_column)
        statuses, ranked = list(statuses_qs), list(cards_qs)
    by_id = {s.pk: s for s in statuses}
    cards: dict[int, list[Task]] = {}
    for task in ranked:
        if task.status_id in by_id:  # a status added since is not a column: its cards wait
            task.board, task.status = board, by_id[task.status_id]  # loaded: no join per card
            cards.setdefault(task.status_id, []).append(task)
    columns = [{"status": s, "tasks": cards.get(s.pk, []), "total": s.total} for s in statuses]
    return board, columns


def _board_querysets(qs: QuerySet[Task], per_column: int) -> tuple[QuerySet[TaskStatus], QuerySet[Task]]:
    """Every status with its count of the tasks of `qs`, and the first `per_column` of them per
    status. `qs` is compiled once and used by both as a derived table, written as SQL around it:
    Django's window-filter emulation (`QUALIFY`) and a correlated `Subquery` cost several
    milliseconds of building and compiling on every board page."""
    tasks_sql, params = qs.order_by().values("id", "status_id", "position").query.sql_with_params()
    count = f"SELECT count(*) FROM ({tasks_sql}) board_tasks WHERE board_tasks.status_id = {_STATUS_ID}"  # noqa: S608
    total = RawSQL(count, params, output_field=IntegerField())  # noqa: S611 (Django's SQL; values are parameters)
    window = (
        "row_number() OVER (PARTITION BY board_tasks.status_id ORDER BY board_tasks.position, board_tasks.id)"
    )
    first = f"SELECT ranked.id FROM (SELECT board_tasks.id, {window} AS rank FROM ({tasks_sql}) board_tasks) ranked"  # noqa: S608
    ranked = RawSQL(f"{first} WHERE ranked.rank <= %s", (*params, per_column))  # noqa: S611 (as above)
    cards = Task.objects.filter(id__in=ranked).select_related("assignee", "client").order_by("position", "id")
    return TaskStatus.objects.annotate(total=total), cards


_BOARD_STATUSES = Prepared(
    lambda board_id: _board_querysets(Task.objects.filter(board_id=board_id), 1)[0], board_id=int
)
_BOARD_CARDS = Prepared(
    lambda board_id, per_column: _board_querysets(Task.objects.filter(board_id=board_id), per_column)[1],
    board_id=int,
    per_column=int,
)


_STATUS_ID = f'"{TaskStatus._meta.db_table}"."id"'


# --- writing tasks ----------------------------------------------------------------------------
def _check_assignee(board: Board, assignee_id: int | None) -> int | None:
    assignee_id = active_person_id(assignee_id, "assignee_id")
    if assignee_id is None:
        return None
    board_viewers = viewers(board)
    if board_viewers != EVERYONE and assignee_id not in board_viewers:
        raise validation.invalid("assignee_id", _("this person cannot see the board"))
    return assignee_id


def _source(principal: Principal, data: TaskCreate, origin: Origin) -> tuple[str, str | None]:
    """The task's origin: a team room's tasks always carry a unique id linking back to the room;
    a filed task names its own; otherwise the surface decides (API, the copilot, by hand)."""
    service = principal.service
    if service is not None and service.kind == service.Kind.TEAM_ROOM:
        source_id = data.source_id if isinstance(data, FiledTask) else None
        return Task.Source.TEAM_CHAT, source_id or f"team_chat:{service.pk}:{uuid.uuid4()}"
    if isinstance(data, FiledTask) and data.source_type is not None:
        if data.source_type == Task.Source.TEAM_CHAT and not data.source_id:
            raise validation.invalid("source_id", _("is required for team chat tasks"))
        return data.source_type, data.source_id or None
    source_id = data.source_id if isinstance(data, FiledTask) else None
    return _SOURCE_OF_SURFACE.get(origin.surface, Task.Source.MANUAL), source_id or None


_SOURCE_OF_SURFACE = {"api": Task.Source.API, "agent": Task.Source.AGENT, "live": Task.Source.AGENT}
# Contract fields that name another row: resolved (and permission-checked) by the service; every
# other contract field that is a column of Task is stored as validated (`_columns`).
_RESOLVED = frozenset(
    {"board_id", "status_id", "status_key", "assignee_id", "client_id", "case_id"}
    | {"source_type", "source_id", "source_context_snapshot"}
)
_COLUMNS = {f.attname: f for f in Task._meta.concrete_fields if f.attname not in _RESOLVED}


def _columns(values: dict[str, Any]) -> dict[str, Any]:
    """The contract's plain fields as columns: None (left out, or emptied) is the column's empty
    value ("" for text) where the column holds no null; a required one cannot be emptied."""
    columns = {}
    for name, value in values.items():
        field = _COLUMNS.get(name)
        if field is None:
            continue
        if value is None and not field.null:
            if not field.blank:
                raise validation.invalid(name, _("must not be empty"))
            value = field.get_default()
        columns[name] = value
    return columns


@transaction.atomic
def create_task(principal: Principal, data: TaskCreate, *, origin: Origin = INTERNAL) -> Task:
    """A new task from the validated `TaskCreate` (or an internal caller's `FiledTask`)."""
    board = get_board(principal, data.board_id) if data.board_id is not None else default_board(principal)
    status_key = data.status_key if isinstance(data, FiledTask) else None
    if data.status_id is not None or status_key:
        status = get_status(data.status_id, status_key)
    else:
        status = first_status()
    source_type, source_id = _source(principal, data, origin)
    snapshot = data.source_context_snapshot if isinstance(data, FiledTask) else origin.run_snapshot()
    task = Task(
        **_columns(data.model_dump(exclude_none=True)),
        board=board,
        status=status,
        assignee_id=_check_assignee(board, data.assignee_id),
        erstellt_von=principal.audit_actor,
        created_by_service=principal.service,
        source_type=source_type,
        source_id=source_id,
        source_context_snapshot=snapshot or {},
        position=_next_position(board, status),
    )
    task.follow_up_date = _follow_up(status, task.follow_up_date)
    _link(principal, task, {"client_id": data.client_id, "case_id": data.case_id})
    if task.source_type == Task.Source.TEAM_CHAT:  # the one unique constraint a new task can meet
        save_unique(task, lambda: validation.invalid("source_id", _("this origin already has a task")))
    else:
        task.save()  # no savepoint: nothing to catch (two statements less per new task)
    # The row as saved is the answer: its board, status and author are at hand (the board was
    # checked visible above), so it is not read back; only a named assignee is loaded.
    if task.assignee_id is not None:
        task.assignee = get_user_model().objects.get(pk=task.assignee_id)
    events.task_changed(task, "aufgaben.task.created")
    return task


def _link(principal: Principal, task: Task, values: dict[str, Any]) -> None:
    """The task's Mandant and Akte: the case decides the client when none is named; a named
    client must be the case's (`case_client_mismatch`)."""
    if "client_id" in values:
        task.client = resolve_client(principal, values["client_id"])
    if "case_id" in values:
        task.case = resolve_case(principal, values["case_id"], client_id=task.client_id)
    elif task.case_id and task.client_id != task.case.client_id:  # the client changed under its case
        resolve_case(principal, task.case_id, client_id=task.client_id)
    if task.case_id and task.client_id is None:
        task.client = task.case.client


def _next_position(board: Board, status: TaskStatus) -> int:
    """After the column's last card, 1 in an empty column (`next_position(…, first=1)`), read
    through a prepared statement: every new and moved task asks it."""
    last = _LAST_POSITION.first(board_id=board.pk, status_id=status.pk)
    return 1 if last is None else last + 1


_LAST_POSITION = Prepared(
    lambda board_id, status_id: (
        Task.objects.filter(board_id=board_id, status_id=status_id)
        .order_by("-position")
        .values_list("position", flat=True)[:1]
    ),
    board_id=int,
    status_id=int,
)


def _follow_up(status: TaskStatus, follow_up: dt.date | None) -> dt.date | None:
    """The `wiedervorlage` status needs a follow-up date; without one it resurfaces in a week."""
    if status.key == TaskStatus.WIEDERVORLAGE and follow_up is None:
        return timezone.localdate() + dt.timedelta(days=7)
    return follow_up


@transaction.atomic
def update_task(principal: Principal, task_id: int, data: TaskUpdate) -> Task:
    """Partial update: fields not sent stay exactly as they are (a concurrent agent change to
    another field survives). With `expected_version`, a stale write is refused instead."""
    changes = data.changes()
    task = get_task(principal, task_id, for_update=True)
    TASK_VERSION.check(task, data.expected_version)
    old_board = task.board
    if changes.get("board_id") is not None:
        task.board = get_board(principal, changes["board_id"])
    if changes.get("status_id") is not None:
        task.status = get_status(changes["status_id"])
    for name, value in _columns(changes).items():
        setattr(task, name, value)
    if "client_id" in changes or "case_id" in changes:
        _link(principal, task, changes)
    if "assignee_id" in changes:
        task.assignee_id = _check_assignee(task.board, changes["assignee_id"])
    elif task.board_id != old_board.pk and task.assignee_id:
        task.assignee_id = _check_assignee(task.board, task.assignee_id)
    task.follow_up_date = _follow_up(task.status, task.follow_up_date)
    if task.board_id != old_board.pk or "status_id" in changes:
        task.position = _next_position(task.board, task.status)
    task.version += 1
    task.save()
    task = get_task(principal, task.pk) if _still_visible(principal, task) else task
    events.task_changed(task, "aufgaben.task.updated", old_board=old_board)
    return task


def _still_visible(principal: Principal, task: Task) -> bool:
    return visible_boards(principal).filter(pk=task.board_id).exists()


@transaction.atomic
def move_task(principal: Principal, task_id: int, data: TaskMove) -> Task:
    """Drag and drop: into a column (status, by id or key), optionally another board, at a position."""
    status_id, board_id, position = data.status_id, data.board_id, data.position
    if data.status_key is not None:
        status_id = get_status(key=data.status_key).pk
    task = get_task(principal, task_id, for_update=True)
    old_board = task.board
    if board_id is not None:
        task.board = get_board(principal, board_id)
        if task.assignee_id:
            task.assignee_id = _check_assignee(task.board, task.assignee_id)
    if status_id is not None:
        task.status = get_status(status_id)
    task.follow_up_date = _follow_up(task.status, task.follow_up_date)
    if position is None:
        task.position = _next_position(task.board, task.status)
    else:
        make_room(Task.objects.filter(board=task.board, status=task.status).exclude(pk=task.pk), position)
        task.position = position
    task.version += 1
    task.save()
    events.task_changed(task, "aufgaben.task.moved", old_board=old_board)
    return task


@transaction.atomic
def delete_task(principal: Principal, task_id: int) -> int:
    task = get_task(principal, task_id, for_update=True)
    board, pk = task.board, task.pk
    task.delete()
    events.task_deleted(pk, board)
    return pk


@transaction.atomic
def add_comment(
    principal: Principal, task_id: int, data: CommentCreate, *, origin: Origin = INTERNAL
) -> tuple[Comment, bool]:
    """Returns (comment, created). A comment through the tool contract is the copilot's
    (`origin.via_tool`); the same agent text on the same task is stored once."""
    task = get_task(principal, task_id)
    body = data.body
    author_type = Comment.AuthorType.AGENT if origin.via_tool else Comment.AuthorType.USER
    actor = principal.audit_actor
    if author_type == Comment.AuthorType.AGENT:
        author_name = "Clapilot"
    else:
        author_name = actor.get_full_name() if actor else str(principal.service)
    digest = hashlib.sha256(body.encode()).hexdigest()
    if author_type == Comment.AuthorType.AGENT:
        existing = Comment.objects.filter(task=task, body_hash=digest, author_type=author_type).first()
        if existing is not None:
            return existing, False
    try:
        with transaction.atomic():
            comment = Comment.objects.create(
                task=task,
                author_type=author_type,
                author=actor,
                author_name=author_name,
                body=body,
                body_hash=digest,
            )
    except IntegrityError:  # a concurrent identical agent comment won
        return Comment.objects.get(task=task, body_hash=digest, author_type=author_type), False
    Task.objects.filter(pk=task.pk).update(version=F("version") + 1, updated_at=timezone.now())
    task.refresh_from_db(fields=["version", "updated_at"])
    events.task_changed(task, "aufgaben.comment.added")
    return comment, True


def list_comments(principal: Principal, task_id: int) -> list[Comment]:
    return list(get_task(principal, task_id).comments.all())


# --- follow-ups -------------------------------------------------------------------------------
@transaction.atomic
def resurface_follow_ups(today: dt.date | None = None) -> int:
    """Tasks in `wiedervorlage` whose follow-up date has come back to the first open column.
    Does nothing when the office removed that status."""
    today = today or timezone.localdate()
    try:
        wiedervorlage = TaskStatus.objects.get(key=TaskStatus.WIEDERVORLAGE)
    except TaskStatus.DoesNotExist:
        return 0
    target = first_status(TaskStatus.Category.OPEN)
    due = list(
        with_relations(
            Task.objects.select_for_update(of=("self",)).filter(
                status=wiedervorlage, follow_up_date__lte=today
            )
        )
    )
    for task in due:
        task.status = target
        task.position = _next_position(task.board, target)
        task.version += 1
        task.save(update_fields=["status", "position", "version", "updated_at"])
        Comment.objects.create(
            task=task,
            author_type=Comment.AuthorType.SYSTEM,
            author_name="Clapilot",
            body=_("Follow-up date reached: back on the list."),
            body_hash=hashlib.sha256(f"resurface:{task.pk}:{today}".encode()).hexdigest(),
        )
        events.task_changed(task, "aufgaben.task.resurfaced")
    return len(due)
