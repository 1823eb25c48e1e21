"""Publishing run events to the channel layer group of their chat session.

Best effort: a lost live message is recovered by the socket's replay from the rows. Inside
async code (a request, a consumer) the event is sent on that event loop, as the layer expects.
Elsewhere (the Celery worker) events go, in order, to one background thread per process that
owns a long-lived event loop: the agent loop never waits for the layer, and the layer's pool
(channels-postgres keeps one per process) is not tied to a short-lived loop that then closes."""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import threading

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def session_group(session_id: int) -> str:
    return f"chat.session.{session_id}"


def _message(event: dict) -> dict:
    return {"type": "chat.event", "event": event}


class _Publisher:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, session_id: int | None, event: dict) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="chat-publisher", daemon=True)
                self._thread.start()
        self._queue.put((session_id, event))

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        while True:
            session_id, event = self._queue.get()
            if session_id is None:
                event["_drain"].set()
                continue
            layer = get_channel_layer()
            try:
                if layer is not None:
                    loop.run_until_complete(layer.group_send(session_group(session_id), _message(event)))
            except Exception:
                logger.warning("Could not publish chat event %s.", event.get("id"), exc_info=True)

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until everything submitted so far is sent (tests, benchmarks)."""
        done = threading.Event()
        self.submit(None, {"_drain": done})
        return done.wait(timeout)


publisher = _Publisher()


def _outer_loop_running() -> bool:
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    pid = getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None)
    return loop is not None and pid == os.getpid() and loop.is_running()


def publish(session_id: int, event: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if not _outer_loop_running():
        publisher.submit(session_id, event)
        return
    try:
        async_to_sync(layer.group_send)(session_group(session_id), _message(event))
    except Exception:
        logger.warning("Could not publish chat event %s.", event.get("id"), exc_info=True)
