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
from apps.core.sharing import granted_to
from apps.mutations.audience import EVERYONE, Viewers
from apps.tasks.models import Board

SHARE_PERMISSION = "view_board_shared"


def board_filter(principal: Principal) -> Q:
    q = Q(visibility=Board.Visibility.SHARED)
    user = principal.user  # a service principal's acting member never widens the scope
    if user is not None:
        restricted = Board.objects.filter(visibility=Board.Visibility.RESTRICTED)
        shared_with_user = granted_to(user, f"tasks.{SHARE_PERMISSION}", restricted).values("id")
        q |= Q(owner_id=user.pk) | Q(id__in=shared_with_user)
    return q


def visible_boards(principal: Principal) -> QuerySet[Board]:
    return Board.objects.filter(board_filter(principal))


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
