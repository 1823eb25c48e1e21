"""Publishing run events to the channel-layer group of their chat session (see apps.core.realtime.layer
for why this never blocks the agent loop)."""

from __future__ import annotations

from apps.core.realtime.layer import group_send


def session_group(session_id: int) -> str:
    return f"chat.session.{session_id}"


def publish(session_id: int, event: dict) -> None:
    group_send(session_group(session_id), {"type": "chat.event", "event": event})
