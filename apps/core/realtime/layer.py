"""Sending to a channel-layer group from anywhere: a request, a consumer or a Celery worker.

Inside async code the message is sent on that event loop, as the layer expects. Elsewhere (the
worker, management commands) messages go, in order, to one background thread per process that
owns a long-lived event loop: `async_to_sync` would start a fresh loop per call, and the layer's
connection pool (channels-postgres keeps one per process) would stay tied to a loop that closed,
so later sends hang until the pool times out. Sending is best effort: every live message has a
persisted row that reconnecting clients replay.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import threading

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


class _Sender:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, group: str | None, message: dict) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="layer-sender", daemon=True)
                self._thread.start()
        self._queue.put((group, message))

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        while True:
            group, message = self._queue.get()
            if group is None:
                message["_drained"].set()
                continue
            layer = get_channel_layer()
            try:
                if layer is not None:
                    loop.run_until_complete(layer.group_send(group, message))
            except Exception:
                logger.warning(
                    "Sending a live message to %s failed; clients replay it.", group, exc_info=True
                )

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until everything submitted so far is sent (tests, benchmarks)."""
        done = threading.Event()
        self.submit(None, {"_drained": done})
        return done.wait(timeout)


sender = _Sender()


def _outer_loop_running() -> bool:
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    pid = getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None)
    return loop is not None and pid == os.getpid() and loop.is_running()


def group_send(group: str, message: dict) -> None:
    """Send without ever raising: failures are logged, clients catch up from the rows."""
    if get_channel_layer() is None:
        logger.debug("No channel layer configured; %s is not pushed live.", group)
        return
    if not _outer_loop_running():
        sender.submit(group, message)
        return
    try:
        async_to_sync(get_channel_layer().group_send)(group, message)
    except Exception:
        logger.warning("Sending a live message to %s failed; clients replay it.", group, exc_info=True)
