"""Who sees which board. One resolved scope drives both authorization and event audiences,
so a shared mutation is never mistaken for private traffic and vice versa.

* shared boards: every staff user and every active service principal
* private boards: their owner only (never borrowed by a team room from the member who spoke)
* restricted boards: the owner and the people granted `view_board_shared` (django-guardian)
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from guardian.shortcuts import get_users_with_perms

from apps.accounts.principal import Principal
from apps.core.db.prepared import Prepared
from apps.core.sharing import granted_to
from apps.mutations.audience import EVERYONE, Viewers
from apps.tasks.models import Board

SHARE_PERMISSION = "view_board_shared"


def board_filter(principal: Principal) -> Q:
    user = principal.user  # a service principal's acting member never widens the scope
    return _member_filter(user) if user is not None else Q(visibility=Board.Visibility.SHARED)


def _member_filter(user) -> Q:
    restricted = Board.objects.filter(visibility=Board.Visibility.RESTRICTED)
    shared_with_user = granted_to(user, f"tasks.{SHARE_PERMISSION}", restricted).values("id")
    return Q(visibility=Board.Visibility.SHARED) | Q(owner_id=user.pk) | Q(id__in=shared_with_user)


def visible_boards(principal: Principal) -> QuerySet[Board]:
    return Board.objects.filter(board_filter(principal))


# What every REST and tool request about tasks asks first, compiled once (apps.core.db.prepared):
# the same filter as `visible_boards`, for a member.
def _of_member(user_id: int) -> QuerySet[Board]:
    return Board.objects.filter(_member_filter(get_user_model()(pk=user_id)))


_MEMBER_BOARDS = Prepared(_of_member, user_id=int)
_MEMBER_BOARD_IDS = Prepared(lambda user_id: _of_member(user_id).values_list("id", flat=True), user_id=int)


_MEMBER_BOARD = Prepared(
    lambda user_id, board_id: _of_member(user_id).filter(pk=board_id).order_by(), user_id=int, board_id=int
)


def visible_board(principal: Principal, board_id: int) -> Board | None:
    """`visible_boards(principal).filter(pk=board_id).first()`, without building the query."""
    user = principal.user
    if user is None:
        return visible_boards(principal).filter(pk=board_id).first()
    return _MEMBER_BOARD.first(user_id=user.pk, board_id=board_id)


def visible_board_list(principal: Principal) -> list[Board]:
    """`list(visible_boards(principal))`, without building the query each time."""
    user = principal.user
    return _MEMBER_BOARDS(user_id=user.pk) if user is not None else list(visible_boards(principal))


def visible_board_ids(principal: Principal) -> list[int]:
    """The ids of `visible_boards(principal)`, without building the query each time."""
    user = principal.user
    if user is None:
        return list(visible_boards(principal).values_list("id", flat=True))
    return _MEMBER_BOARD_IDS(user_id=user.pk)


def viewers(board: Board) -> Viewers:
    """EVERYONE for shared boards, else the user ids that may see the board."""
    if board.visibility == Board.Visibility.SHARED:
        return EVERYONE
    ids = {board.owner_id} if board.owner_id else set()
    if board.visibility == Board.Visibility.RESTRICTED:
        ids |= set(
            get_users_with_perms(board, only_with_perms_in=[SHARE_PERMISSION]).values_list("id", flat=True)
        )
    return ids


def share_board(board: Board, user_ids: list[int]) -> None:
    """Replace the people a restricted board is shared with."""
    from guardian.shortcuts import assign_perm, remove_perm

    User = get_user_model()
    current = set(
        get_users_with_perms(board, only_with_perms_in=[SHARE_PERMISSION]).values_list("id", flat=True)
    )
    wanted = set(user_ids)
    for user in User.objects.filter(id__in=wanted - current):
        assign_perm(SHARE_PERMISSION, user, board)
    for user in User.objects.filter(id__in=current - wanted):
        remove_perm(SHARE_PERMISSION, user, board)
