"""`/ws/chat/<session_id>/`: a chat session's run events, live, with replay after `?after=<id>`."""

from __future__ import annotations

import logging

from channels.db import database_sync_to_async

from apps.agent import live
from apps.agent.contracts import RunEventOut
from apps.agent.models import ChatSession, RunEvent
from apps.core.realtime.consumers import CLOSE_BAD_REQUEST, EventSocket, after_cursor

logger = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4404
REPLAY_MAX = 5000


class ChatConsumer(EventSocket):
    """Sends {"type": "event", "event": {...}}. The cursor is the event's `id` (monotonic across
    the runs of a session). The socket joins the group before it reads the replay; live events
    arriving meanwhile are held back and duplicates dropped."""

    async def connect(self) -> None:
        user = await self.signed_in_user()
        if user is None:
            return
        try:
            self.session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
            after = after_cursor(self.scope.get("query_string", b""))
        except (KeyError, ValueError):
            await self.close(code=CLOSE_BAD_REQUEST)
            return
        if not await database_sync_to_async(_owns)(user.pk, self.session_id):
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = live.session_group(self.session_id)
        self._held: list[dict] | None = []
        self._sent: set[int] = set()
        if self.channel_layer is not None:
            await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        if after is not None:
            for event in await database_sync_to_async(_replay)(self.session_id, after):
                self._sent.add(event["id"])
                await self.send_json({"type": "event", "event": event, "replay": True})
        held, self._held = self._held, None
        for event in held:
            await self._deliver(event)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None) and self.channel_layer is not None:
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:  # a stale membership only costs wasted sends; the layer expires it
                logger.warning("Could not leave chat group %s.", self.group, exc_info=True)

    async def chat_event(self, message: dict) -> None:
        event = message.get("event")
        if not isinstance(event, dict):
            return
        if self._held is not None:
            self._held.append(event)
            return
        await self._deliver(event)

    async def _deliver(self, event: dict) -> None:
        if event.get("id") in self._sent:
            return
        self._sent.add(event.get("id"))
        await self.send_json({"type": "event", "event": event})


def _owns(user_id: int, session_id: int) -> bool:
    return ChatSession.objects.filter(pk=session_id, user_id=user_id).exists()


def _replay(session_id: int, after: int) -> list[dict]:
    rows = RunEvent.objects.filter(run__session_id=session_id, pk__gt=after).order_by("pk")[:REPLAY_MAX]
    return [RunEventOut.record(e) for e in rows]
