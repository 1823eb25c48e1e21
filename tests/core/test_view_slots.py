"""A bounded number of views at once per web process (apps/core/surfaces/slots.py): the others
wait their turn, a view that runs past the lease lets the next one in, and a streamed response is
sent outside the slot."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse, StreamingHttpResponse
from django.test import override_settings
from django.urls import path

from apps.core.surfaces import slots
from apps.core.surfaces.bodies import BodyMeasuringASGIHandler
from apps.core.surfaces.slots import ViewSlots

pytestmark = pytest.mark.django_db(transaction=True)


def test_at_most_size_holders_run_at_once():
    async def main() -> int:
        bound = ViewSlots(2, lease=10.0)
        running = peak = 0

        async def view() -> None:
            nonlocal running, peak
            async with bound.held():
                running += 1
                peak = max(peak, running)
                await asyncio.sleep(0.02)
                running -= 1

        await asyncio.gather(*(view() for _ in range(8)))
        return peak

    assert asyncio.run(main()) == 2


def test_a_holder_past_its_lease_lets_the_next_one_in():
    async def main() -> tuple[float, float]:
        bound = ViewSlots(1, lease=0.1)
        started: dict[str, float] = {}
        t0 = time.monotonic()

        async def slow() -> None:
            async with bound.held():
                started["slow"] = time.monotonic() - t0
                await asyncio.sleep(1.0)  # a provider taking its time

        async def quick() -> None:
            await asyncio.sleep(0.01)
            async with bound.held():
                started["quick"] = time.monotonic() - t0

        await asyncio.gather(slow(), quick())
        return started["slow"], started["quick"]

    slow, quick = asyncio.run(main())
    assert slow < 0.05
    assert 0.08 < quick < 0.5  # after the lease, long before the slow one ended


def test_a_slot_given_back_by_its_lease_is_not_given_back_twice():
    async def main() -> bool:
        bound = ViewSlots(1, lease=0.02)
        async with bound.held():
            await asyncio.sleep(0.05)  # the lease gave the slot back meanwhile
        async with bound.held():
            return bound._free.locked()  # one slot, not two: the next holder would wait

    assert asyncio.run(main()) is True


def test_each_event_loop_has_its_own_slots(settings):
    settings.CLAPILOT_VIEW_SLOTS, settings.CLAPILOT_VIEW_LEASE = 3, 0.5

    async def mine() -> ViewSlots | None:
        return slots.slots()

    first, second = asyncio.run(mine()), asyncio.run(mine())
    assert first is not None and second is not None and first is not second
    assert (first.size, first.lease) == (3, 0.5)
    settings.CLAPILOT_VIEW_SLOTS = 0
    assert asyncio.run(mine()) is None


# --- through the project's ASGI handler --------------------------------------------------------
RUNNING = {"now": 0, "peak": 0}
_lock = threading.Lock()


@login_not_required
def busy_view(request):
    with _lock:
        RUNNING["now"] += 1
        RUNNING["peak"] = max(RUNNING["peak"], RUNNING["now"])
    time.sleep(0.05)
    with _lock:
        RUNNING["now"] -= 1
    return HttpResponse("ok")


@login_not_required
def streamed_view(request):
    async def chunks():  # as the live-event stream (apps/core/realtime/sse.py)
        for i in range(3):
            await asyncio.sleep(0.05)
            yield f"{i}\n"

    return StreamingHttpResponse(chunks())


urlpatterns = [path("busy/", busy_view), path("streamed/", streamed_view)]


async def asgi_get(app: BodyMeasuringASGIHandler, url: str) -> tuple[int, bytes]:
    """GET `url` from the ASGI app itself (as daphne calls it): status and the whole body."""
    sent: list[dict] = []

    requested = False

    async def receive() -> dict:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays: Django stops listening when it answered
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": url,
        "raw_path": url.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


@override_settings(
    ROOT_URLCONF=__name__, CLAPILOT_VIEW_SLOTS=2, CLAPILOT_VIEW_LEASE=5.0, ALLOWED_HOSTS=["testserver"]
)
def test_the_handler_runs_at_most_the_slots_views_at_once():
    RUNNING.update(now=0, peak=0)
    app = BodyMeasuringASGIHandler()

    async def main() -> list[int]:
        return [status for status, _ in await asyncio.gather(*(asgi_get(app, "/busy/") for _ in range(6)))]

    assert asyncio.run(main()) == [200] * 6
    assert RUNNING["peak"] == 2


@override_settings(
    ROOT_URLCONF=__name__, CLAPILOT_VIEW_SLOTS=1, CLAPILOT_VIEW_LEASE=5.0, ALLOWED_HOSTS=["testserver"]
)
def test_a_streamed_response_is_sent_outside_the_slot():
    """One slot: a second request is answered while the first one's body is still streaming."""
    app = BodyMeasuringASGIHandler()

    async def main() -> tuple[float, float, bytes]:
        t0 = time.monotonic()

        async def streamed() -> tuple[float, bytes]:
            _, body = await asgi_get(app, "/streamed/")
            return time.monotonic() - t0, body

        async def busy() -> float:
            await asyncio.sleep(0.02)
            await asgi_get(app, "/busy/")
            return time.monotonic() - t0

        (streamed_done, body), busy_done = await asyncio.gather(streamed(), busy())
        return streamed_done, busy_done, body

    streamed_done, busy_done, body = asyncio.run(main())
    assert body == b"0\n1\n2\n"
    assert busy_done < streamed_done
