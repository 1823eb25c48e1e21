"""`GET /api/v1/notifications`: a person's notifications after a cursor, for polling devices."""

from __future__ import annotations

from apps.core.surfaces.api import ApiView, endpoint
from apps.notifications import contracts as c
from apps.notifications import services


class NotificationListView(ApiView):
    """Cursor-based and read-only: polling devices never mark anything read."""

    required_scopes = ["notifications:read"]

    @endpoint(query=c.NotificationCursor, output=c.NotificationPage, operation_id="v1_notifications_list")
    def get(self, request, query: c.NotificationCursor):
        """Notifications after a cursor"""
        items = services.list_after(request.principal, after=query.after, limit=query.limit)
        return {
            "notifications": [c.NotificationOut.of(note) for note in items],
            "next_after": items[-1].pk if items else query.after,
        }
