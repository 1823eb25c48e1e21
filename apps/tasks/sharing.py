"""Sharing a board with people and groups: the only writer of board grants (the board page's
share dialog and the admin both call it).

Only the board's owner shares (an administrator too, from the admin). Sharing a private board
makes it restricted; a board shared with the whole office has nobody left to add. The owner's
own access cannot be revoked (`share_last_owner`).

Live: people who gain sight of the board get it as a new tab; people who lose it get a removal of
the board and of its tasks, so their open board, list and task pages drop them at once.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core import sharing, validation
from apps.core.db.lookup import get_by_id
from apps.core.errors import ShareLastOwner, ShareNotAllowed
from apps.mutations import actions
from apps.mutations.audience import send
from apps.tasks.errors import BoardNotFound
from apps.tasks.models import Board, Task
from apps.tasks.visibility import SHARE_PERMISSION, viewers, visible_boards

LEVELS: sharing.Levels = {"view": (SHARE_PERMISSION,)}
LEVEL_LABELS = {"view": gettext_lazy("Can see and work on the tasks")}
BOARDS = "boards"
MAX_TASK_REMOVALS = 400  # beyond this the removal event asks the pages to reload instead


def record_id(board: Board) -> str:
    return f"board-{board.pk}"


def board_record(board: Board) -> dict[str, Any]:
    return {
        "id": record_id(board),
        "name": board.name,
        "visibility": board.visibility,
        "visibility_label": str(board.get_visibility_display()),
        "url": f"{reverse('tasks:board')}?board={board.pk}",
    }


def _board(principal: Principal, board_id: Any, *, as_admin: bool) -> Board:
    """The board to share, locked. Invisible boards answer like missing ones, except to an
    administrator in the admin (the control plane sees every board)."""
    if as_admin and principal.user is not None and principal.user.is_admin:
        qs = Board.objects.all()
    else:
        qs = visible_boards(principal)
    board = get_by_id(qs.select_for_update(), board_id, BoardNotFound, _("There is no board with id %(id)s."))
    is_owner = principal.user is not None and board.owner_id == principal.user.pk
    if not is_owner and not (as_admin and principal.user is not None and principal.user.is_admin):
        raise ShareNotAllowed(
            _("Only the owner of the board “%(name)s” can share it.") % {"name": board.name}
        )
    return board


def board_shares(principal: Principal, board_id: Any, *, as_admin: bool = False) -> dict[str, Any]:
    board = get_by_id(
        visible_boards(principal) if not as_admin else Board.objects.all(),
        board_id,
        BoardNotFound,
        _("There is no board with id %(id)s."),
    )
    can_manage = principal.user is not None and (
        board.owner_id == principal.user.pk or (as_admin and principal.user.is_admin)
    )
    data = sharing.payload(
        board, owner=board.owner, levels=LEVELS, can_manage=can_manage, level_labels=LEVEL_LABELS
    )
    return data | {"shareable": board.visibility != Board.Visibility.SHARED}


def grant_board(
    principal: Principal, board_id: Any, target: Any, level: str = "view", *, as_admin: bool = False
) -> Board:
    board = _board(principal, board_id, as_admin=as_admin)
    level = sharing.check_level(level, LEVELS)
    who = sharing.resolve_target(target)
    if board.visibility == Board.Visibility.SHARED:
        raise validation.invalid("target", _("the board is already shared with the whole office"))
    if who.kind == "user" and who.obj.pk == board.owner_id:
        raise validation.invalid("target", _("the owner sees the board anyway"))
    before = viewers(board)
    if board.visibility == Board.Visibility.PRIVATE:
        board.visibility = Board.Visibility.RESTRICTED
        board.save(update_fields=["visibility"])
    sharing.grant(board, who, LEVELS, level)
    _announce(board, before)
    return board


def revoke_board(principal: Principal, board_id: Any, target: Any, *, as_admin: bool = False) -> Board:
    board = _board(principal, board_id, as_admin=as_admin)
    who = sharing.resolve_target(target)
    if who.kind == "user" and who.obj.pk == board.owner_id:
        raise ShareLastOwner(_("The owner keeps access to the board “%(name)s”.") % {"name": board.name})
    before = viewers(board)
    sharing.revoke(board, who, LEVELS)
    _announce(board, before)
    return board


def _announce(board: Board, before: Any) -> None:
    gained, lost = sharing.changed_viewers(before, viewers(board))
    if gained:
        upsert = actions.upsert(BOARDS, record_id(board), board_record(board))
        send(gained, "aufgaben.board.shared", [upsert | {"announce_key": "aufgaben.board.shared"}])
    if lost:
        removal = actions.remove(BOARDS, record_id(board)) | {"announce_key": "aufgaben.board.unshared"}
        send(lost, "aufgaben.board.unshared", [removal])
        task_ids = list(
            Task.objects.filter(board=board).values_list("id", flat=True)[: MAX_TASK_REMOVALS + 1]
        )
        if len(task_ids) > MAX_TASK_REMOVALS:
            send(lost, "aufgaben.task.removed", [], trigger_reload=True)
        elif task_ids:
            send(lost, "aufgaben.task.removed", [actions.remove("tasks", str(i)) for i in task_ids])
