"""The board page's share dialog endpoint (see apps.core.share_views)."""

from apps.core.share_views import share_view
from apps.tasks import sharing

share_board = share_view(sharing.board_shares, sharing.grant_board, sharing.revoke_board)
