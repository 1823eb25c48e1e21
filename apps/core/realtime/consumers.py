"""WebSocket pieces shared by the apps: `PingConsumer`, a minimal authenticated socket that lets
clients and /healthz-style probes verify the WS path; `EventSocket` and `after_cursor` for the
event sockets that replay after `?after=<id>`."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class PingConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        if not self.scope["user"].is_authenticated:
            await self.close(code=4401)
            return
        await self.accept()

    async def receive_json(self, content, **kwargs):
        await self.send_json({"type": "pong", "echo": content.get("echo")})


CLOSE_UNAUTHENTICATED = 4401
CLOSE_BAD_REQUEST = 4400


class EventSocket(AsyncJsonWebsocketConsumer):
    """Base of the one-way event sockets (a chat's run events, the UI mutation events)."""

    async def signed_in_user(self) -> Any:
        """The socket's signed-in user; None once the socket is closed with 4401 (signed out)."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return None
        return user

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The stream is one-way; a client ping gets an answer so it can detect dead sockets."""
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})


def after_cursor(query_string: bytes) -> int | None:
    """The `?after=<id>` an event socket replays from: None when absent or empty; ValueError
    for anything but a non-negative number."""
    values = parse_qs(query_string.decode("latin-1")).get("after")
    if not values or values[0] == "":
        return None
    after = int(values[0])
    if after < 0:
        raise ValueError("after must not be negative")
    return after
