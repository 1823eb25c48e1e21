"""One channel-layer subscription per server process, fanned out to that process's sockets.

Channels' usual pattern (every socket joins the groups) turns one shared event into one
channel-layer message per open page: with 500 pages, 500 rows inserted and 500 NOTIFYs decoded
by the Postgres layer (or 500 Redis list pushes), which saturates a core long before the
sockets do. Here each process joins "mutations.all" once, and each user's group once however
many tabs they have, receives each event once, encodes it once, and writes it to the local
sockets that may see it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from typing import TYPE_CHECKING, Any

from channels.layers import get_channel_layer

from apps.mutations import services
from apps.mutations.models import MutationEvent

if TYPE_CHECKING:
    from apps.mutations.consumers import MutationConsumer

logger = logging.getLogger(__name__)

_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, MutationHub] = weakref.WeakKeyDictionary()


def hub_for_running_loop() -> MutationHub:
    """The hub of this process's event loop (daphne runs one; each async test runs its own)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = MutationHub()
    return hub


class MutationHub:
    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.by_user: dict[int, set[MutationConsumer]] = {}
        self._lock = asyncio.Lock()
        self._task: asyncio.Task | None = None

    async def join(self, consumer: MutationConsumer) -> None:
        """Subscribe for the consumer's user; returns once the subscription is in place, so a
        replay read afterwards cannot miss an event committed in between."""
        async with self._lock:
            if self.layer is None:
                logger.warning("No channel layer configured: open pages get no live mutation events.")
                return
            if self.channel is None:
                self.channel = await self.layer.new_channel(prefix="mutations")
                await self.layer.group_add(services.ALL_GROUP, self.channel)
                self._task = asyncio.create_task(self._receive_loop(self.channel))
            sockets = self.by_user.setdefault(consumer.user_id, set())
            if not sockets:
                await self.layer.group_add(services.user_group(consumer.user_id), self.channel)
            sockets.add(consumer)

    async def leave(self, consumer: MutationConsumer) -> None:
        async with self._lock:
            sockets = self.by_user.get(consumer.user_id)
            if not sockets or consumer not in sockets:
                return
            sockets.discard(consumer)
            if not sockets:
                del self.by_user[consumer.user_id]
                await self._discard(services.user_group(consumer.user_id))
            if not self.by_user:
                await self._stop()

    async def _stop(self) -> None:
        """The last local page closed: unsubscribe instead of collecting events for nobody."""
        await self._discard(services.ALL_GROUP)
        if self._task is not None:
            self._task.cancel()
        self._task, self.channel = None, None

    async def _discard(self, group: str) -> None:
        try:
            await self.layer.group_discard(group, self.channel)
        except Exception:
            # A stale membership only costs wasted sends; the layer's expiry removes it.
            logger.exception("Could not leave channel-layer group %s.", group)

    async def _receive_loop(self, channel: str) -> None:
        failures = 0
        while True:
            try:
                message = await self.layer.receive(channel)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception:
                # Keep serving the other pages; a layer hiccup must not end live updates.
                failures += 1
                logger.warning("Receiving mutation events failed (attempt %s).", failures, exc_info=True)
                await asyncio.sleep(min(5.0, 0.1 * 2**failures))
                continue
            try:
                await self.dispatch(message)
            except Exception:
                logger.exception("Dispatching mutation event failed.")

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Write one published event to every local socket allowed to see it."""
        event = message.get("event")
        if message.get("type") != "mutation.event" or not isinstance(event, dict):
            return
        if message.get("audience") == MutationEvent.Audience.USER:
            targets = list(self.by_user.get(message.get("user_id"), ()))
        else:
            excluded = message.get("except_user")
            targets = [c for user_id, sockets in self.by_user.items() if user_id != excluded for c in sockets]
        if not targets:
            return
        text = json.dumps({"type": "mutation", "event": event}, separators=(",", ":"))
        for consumer in targets:
            try:
                await consumer.offer(event, text)
            except Exception:
                logger.debug("Socket closed while sending mutation event %s.", event.get("id"), exc_info=True)
