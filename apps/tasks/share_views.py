"""The board page's share dialog endpoint (see apps.core.share_views)."""

from django.contrib.auth.decorators import login_required

from apps.core.share_views import share_endpoint, share_methods
from apps.tasks import sharing


@share_methods
@login_required
def share_board(request, board_id: int):
    return share_endpoint(
        request,
        read=lambda p: sharing.board_shares(p, board_id),
        grant=lambda p, target, level: sharing.grant_board(p, board_id, target, level),
        revoke=lambda p, target: sharing.revoke_board(p, board_id, target),
    )
