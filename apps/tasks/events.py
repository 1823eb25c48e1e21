"""Live events of the Aufgaben domain, audience-scoped by the board's viewers (see
`apps.mutations.audience` for the rules shared with every domain)."""

from __future__ import annotations

from apps.mutations import actions
from apps.mutations.audience import LiveList, announced_remove, send
from apps.mutations.services import record_mutation
from apps.tasks.contracts import TaskOut
from apps.tasks.models import Board, Task
from apps.tasks.visibility import viewers

LIST = "tasks"
TOPIC = "aufgaben.task.updated"
BOARDS_TOPIC = "aufgaben.boards"
TASKS = LiveList(LIST, TOPIC, "aufgaben.task.removed")


def task_changed(task: Task, announce_key: str, old_board: Board | None = None) -> None:
    """A task was created or changed. When it moved to a board fewer people see, those who lost
    sight of it get only a removal, never the record."""
    new_viewers = viewers(task.board)
    old_viewers = (
        viewers(old_board) if old_board is not None and old_board.pk != task.board_id else new_viewers
    )
    TASKS.changed(TaskOut.record(task), announce_key, new_viewers, old_viewers)


def task_deleted(task_id: int, board: Board) -> None:
    send(viewers(board), "aufgaben.task.deleted", announced_remove(LIST, task_id, "aufgaben.task.deleted"))


def boards_changed(board: Board, announce_key: str) -> None:
    """Board lists and status columns reload: everyone for shared boards, else the viewers."""
    reload = [actions.reload_topic(BOARDS_TOPIC) | {"announce_key": announce_key}]
    send(viewers(board), "aufgaben.boards.changed", reload, refresh_topic=BOARDS_TOPIC)


def statuses_changed() -> None:
    record_mutation(
        audience="all",
        topic="aufgaben.statuses.changed",
        ui_actions=[actions.reload_topic(BOARDS_TOPIC) | {"announce_key": "aufgaben.statuses.changed"}],
        refresh_topic=BOARDS_TOPIC,
        trigger_reload=True,
    )
