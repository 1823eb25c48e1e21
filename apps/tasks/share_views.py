"""The board page's share dialog endpoint (see apps.core.sharing.views)."""

from apps.core.sharing.views import share_view
from apps.tasks import sharing

share_board = share_view(sharing.board_shares, sharing.grant_board, sharing.revoke_board)
