"""Live events of the Aufgaben domain, audience-scoped by the board's viewers.

Shared data is one all-users row; private data only ever reaches its owner. Every action carries
a semantic `announce_key` that each client (de/en/it) turns into its own sentence.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model

from apps.mutations import actions
from apps.mutations.services import record_mutation
from apps.tasks.models import Board, Task
from apps.tasks.records import task_record
from apps.tasks.visibility import EVERYONE, viewers

LIST = "tasks"
BOARDS_TOPIC = "aufgaben.boards"


def _upsert(record: dict, announce_key: str) -> list[dict]:
    action = actions.upsert(LIST, record["id"], record)
    action["announce_key"] = announce_key
    return [action, actions.highlight(record["id"])]


def _remove(task_id: int, announce_key: str) -> list[dict]:
    action = actions.remove(LIST, task_id)
    action["announce_key"] = announce_key
    return [action]


def _send(audience_users: str | set[int], topic: str, ui_actions: list[dict]) -> None:
    if audience_users == EVERYONE:
        record_mutation(audience="all", topic=topic, ui_actions=ui_actions)
        return
    for user in get_user_model().objects.filter(id__in=audience_users):
        record_mutation(audience="user", user=user, topic=topic, ui_actions=ui_actions)


def task_changed(task: Task, announce_key: str, old_board: Board | None = None) -> None:
    """A task was created or changed. When it moved to a board fewer people see, those who lost
    sight of it get only a removal, never the record."""
    record = task_record(task)
    new_viewers = viewers(task.board)
    old_viewers = (
        viewers(old_board) if old_board is not None and old_board.pk != task.board_id else new_viewers
    )
    topic = "aufgaben.task.updated"
    if new_viewers == EVERYONE:
        _send(EVERYONE, topic, _upsert(record, announce_key))
        return
    removal = _remove(task.pk, "aufgaben.task.removed")
    if old_viewers == EVERYONE:
        if len(new_viewers) == 1:
            (owner_id,) = new_viewers
            owner = get_user_model().objects.get(pk=owner_id)
            record_mutation(audience="all_except", user=owner, topic=topic, ui_actions=removal)
        else:
            _send(EVERYONE, topic, removal)  # the new viewers get the record right after
    else:
        lost = old_viewers - new_viewers
        if lost:
            _send(lost, topic, removal)
    _send(new_viewers, topic, _upsert(record, announce_key))


def task_deleted(task_id: int, board: Board) -> None:
    _send(viewers(board), "aufgaben.task.deleted", _remove(task_id, "aufgaben.task.deleted"))


def boards_changed(board: Board, announce_key: str) -> None:
    """Board lists and status columns reload: everyone for shared boards, else the viewers."""
    reload = [actions.reload_topic(BOARDS_TOPIC) | {"announce_key": announce_key}]
    audience = viewers(board)
    if audience == EVERYONE:
        record_mutation(
            audience="all", topic="aufgaben.boards.changed", ui_actions=reload, refresh_topic=BOARDS_TOPIC
        )
    else:
        for user in get_user_model().objects.filter(id__in=audience):
            record_mutation(
                audience="user",
                user=user,
                topic="aufgaben.boards.changed",
                ui_actions=reload,
                refresh_topic=BOARDS_TOPIC,
            )


def statuses_changed() -> None:
    record_mutation(
        audience="all",
        topic="aufgaben.statuses.changed",
        ui_actions=[actions.reload_topic(BOARDS_TOPIC) | {"announce_key": "aufgaben.statuses.changed"}],
        refresh_topic=BOARDS_TOPIC,
        trigger_reload=True,
    )
