"""Publishing run events to the channel layer group of their chat session."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def session_group(session_id: int) -> str:
    return f"chat.session.{session_id}"


def publish(session_id: int, event: dict) -> None:
    """Best effort: a lost live message is recovered by the socket's replay from the rows."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(session_group(session_id), {"type": "chat.event", "event": event})
    except Exception:
        logger.warning("Could not publish chat event %s.", event.get("id"), exc_info=True)
