"""A bounded number of views running at once in one web process.

Each request's middleware and view run in a thread of their own, and a daphne process has one
GIL: ten requests at once are ten threads taking the interpreter from each other at every query
and every 5 ms switch. Under the mixed office load that contention cost about 1.5 ms of CPU per
request (8.2 ms at 10 clients against 6.7 ms at one); letting at most a few views run while the
others wait their turn on the event loop took the process from 105 to 115 mixed requests/s
(bench/load.py, issue #28). Waiting costs no CPU: the process is busy with the views that run.

Some views wait on something else than this process's CPU: a model provider behind the inference
endpoint, a connector, the stop of an agent run. A view that has held its slot for `lease`
seconds gives it back (it keeps running), so such views never keep the others waiting longer
than that. Streaming a response happens after the view returned, outside the slot.

`CLAPILOT_VIEW_SLOTS` sets the number per process (0: no bound), `CLAPILOT_VIEW_LEASE` the
seconds after which a running view gives its slot back.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from django.conf import settings


class ViewSlots:
    """At most `size` holders at once; a holder gives its slot back when it leaves or after
    `lease` seconds, whichever comes first. Bound to the event loop it is used on."""

    def __init__(self, size: int, lease: float) -> None:
        self.size, self.lease = size, lease
        self._free = asyncio.Semaphore(size)

    @asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        await self._free.acquire()
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                self._free.release()

        expiry = asyncio.get_running_loop().call_later(self.lease, give_back)
        try:
            yield
        finally:
            expiry.cancel()
            give_back()


# One per event loop (a test may run several loops one after another; a semaphore belongs to one).
_per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ViewSlots] = weakref.WeakKeyDictionary()


def slots() -> ViewSlots | None:
    """This loop's slots as the settings say now (None: no bound)."""
    size, lease = int(settings.CLAPILOT_VIEW_SLOTS), float(settings.CLAPILOT_VIEW_LEASE)
    if size <= 0:
        return None
    loop = asyncio.get_running_loop()
    current = _per_loop.get(loop)
    if current is None or (current.size, current.lease) != (size, lease):
        current = _per_loop[loop] = ViewSlots(size, lease)
    return current


class BoundedViews:
    """Mixin for Django's ASGI handler: the middleware and view of a request run in a slot."""

    async def run_get_response(self, request: Any) -> Any:
        bound = slots()
        if bound is None:
            return await super().run_get_response(request)  # type: ignore[misc]
        async with bound.held():
            return await super().run_get_response(request)  # type: ignore[misc]
