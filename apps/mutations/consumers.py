"""`/ws/mutations/`: live UI mutation events for open pages, with replay after a reconnect."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from apps.core.realtime.consumers import CLOSE_BAD_REQUEST, EventSocket, after_cursor
from apps.mutations import services
from apps.mutations.hub import hub_for_running_loop
from apps.mutations.models import MutationEvent

# A client further behind than this reloads its page instead of applying thousands of events.
REPLAY_MAX = 2000


class MutationConsumer(EventSocket):
    """Sends {"type": "mutation", "event": {...}} for every event the signed-in user may see.

    Live events come from the process's `MutationHub`, not from a channel of the socket's own
    (hence no channel layer here). The socket subscribes *before* the replay is read, so an
    event committed in between arrives both ways: live events are held back until the replay
    is sent, and those the replay already sent are dropped. They are not dropped by
    "id <= last sent": commits may arrive out of id order.
    """

    channel_layer_alias = None  # the hub holds the one subscription of this process

    async def connect(self) -> None:
        user = await self.signed_in_user()
        if user is None:
            return
        try:
            after = after_cursor(self.scope.get("query_string", b""))
        except ValueError:
            await self.close(code=CLOSE_BAD_REQUEST)
            return
        self.user_id: int = user.pk
        self.last_sent_id = after or 0
        self._replayed: set[int] = set()
        self._held: list[tuple[dict[str, Any], str]] | None = []  # live events during the replay
        self._hub = hub_for_running_loop()
        await self._hub.join(self)
        await self.accept()
        if after is not None:
            await self._replay(user, after)
        while self._held:
            await self.offer(*self._held.pop(0), held=True)
        self._held = None

    async def disconnect(self, code: int) -> None:
        hub = getattr(self, "_hub", None)
        if hub is not None:
            await hub.leave(self)

    async def _replay(self, user: Any, after: int) -> None:
        events, resync = await database_sync_to_async(_load_replay)(user, after)
        if resync:
            head = await database_sync_to_async(services.head_id)()
            self.last_sent_id = max(self.last_sent_id, head)
            await self.send_json({"type": "resync", "after": head})
            return
        for event in events:
            self._replayed.add(event["id"])
            # `replay` marks missed events: clients apply them but do not navigate or move focus.
            await self.send_json({"type": "mutation", "event": event, "replay": True})
            self.last_sent_id = max(self.last_sent_id, event["id"])

    async def offer(self, event: dict[str, Any], text: str, *, held: bool = False) -> None:
        """A live event from the hub, already filtered by audience and encoded once for all."""
        if self._held is not None and not held:
            self._held.append((event, text))
            return
        if event["id"] in self._replayed:
            self._replayed.discard(event["id"])
            return
        await self.send(text_data=text)
        self.last_sent_id = max(self.last_sent_id, event["id"])


def _load_replay(user: Any, after: int) -> tuple[list[dict[str, Any]], bool]:
    """Everything visible after `after`, or resync=True when the client is too far behind.

    Unsettled reads: the socket is already subscribed, so nothing committed later is missed,
    and waiting for the settle horizon would only delay rows that are already committed.
    """
    if after > 0:
        oldest = MutationEvent.objects.order_by("id").values_list("id", flat=True).first()
        if oldest is not None and after < oldest - 1:
            return [], True  # retention removed events the client has not seen
    events: list[dict[str, Any]] = []
    cursor = after
    while True:
        page = list(services.visible_events(user, cursor, services.MAX_LIMIT, settled=False))
        events.extend(services.serialize_event(event) for event in page)
        if len(events) > REPLAY_MAX:
            return [], True
        if len(page) < services.MAX_LIMIT:
            return events, False
        cursor = page[-1].id
