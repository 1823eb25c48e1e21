"""The channels-postgres layer with one LISTEN session per event loop, and channels that receive
from the moment they exist.

Upstream (channels-postgres 1.1) starts a listener task for every `receive()` that comes before
the first listener has connected: a burst of first receives (a probe storm on /healthz, many
sockets right after start) opened one LISTEN session each, kept them forever, and every one of
them queued each notification again. It also drops the notification of a message sent to a
channel before its first `receive()` (the channel's advisory lock is taken there), although the
channel-layer spec lets a message wait for its receiver; and a listener whose session broke (a
database restart) was never started again, so live events stopped until the process restarted.
"""

from __future__ import annotations

import asyncio
import logging

from channels_postgres.core import PostgresChannelLayer as _Upstream

logger = logging.getLogger(__name__)

RECONNECT_SECONDS = 1.0


class PostgresChannelLayer(_Upstream):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._listener_loop: asyncio.AbstractEventLoop | None = None
        self._listener_task: asyncio.Task | None = None

    def _get_or_create_listener_task(self) -> tuple[asyncio.Event, bool]:
        """Starts the loop's listener the first time (and keeps a reference to the task); upstream's
        receive() never starts one itself, as this answers "not new"."""
        loop = asyncio.get_running_loop()
        if self._listener_loop is not loop or self.listener_task_is_running is None:
            self._listener_loop = self.event_loop = loop
            self.listener_task_is_running = asyncio.Event()
            self._listener_task = loop.create_task(self.listen_to_all_channels())
        return self.listener_task_is_running, False

    async def _listening(self) -> None:
        running, _ = self._get_or_create_listener_task()
        await running.wait()

    async def listen_to_all_channels(self) -> None:
        """Upstream's listener, connected again after its session broke."""
        while True:
            try:
                await super().listen_to_all_channels()
                return  # the shutdown notification
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.listener_task_is_running is not None:
                    self.listener_task_is_running.clear()  # new receivers wait for the new session
                logger.warning("Channel layer LISTEN session lost (%s); reconnecting.", type(exc).__name__)
                await asyncio.sleep(RECONNECT_SECONDS)

    async def new_channel(self, prefix: str = "specific") -> str:
        """A channel of this process that already receives: its lock is held and the listener
        runs, so a message sent before the first receive() is not dropped."""
        name = await super().new_channel(prefix)
        await self._get_or_create_channel_advisory_lock(name)
        await self._listening()
        return name
