"""The JSON cursor `GET /api/ui-mutation-events` and the SSE stream `.../stream`."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from apps.mutations.services import record_mutation
from clapilot.asgi import application
from tests.factories import UserFactory
from tests.mutations.conftest import session_cookie

URL = "/api/ui-mutation-events"
STREAM_URL = "/api/ui-mutation-events/stream"


# --- JSON cursor ----------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_cursor_pages_through_the_callers_events(web, user, other_user, layer):
    visible = [record_mutation(audience="all", topic=f"aufgaben.task.n{i}").id for i in range(3)]
    record_mutation(audience="user", user=other_user, topic="notizen.note.secret")
    visible.append(record_mutation(audience="user", user=user, topic="notizen.note.mine").id)
    record_mutation(audience="all_except", user=user, topic="aufgaben.task.removed")
    visible.append(record_mutation(audience="all", topic="aufgaben.task.last").id)

    seen, after = [], 0
    for _ in range(10):
        response = web.get(URL, {"after": after, "limit": 2})
        assert response.status_code == 200
        body = response.json()
        seen += [event["id"] for event in body["events"]]
        assert body["next_after"] == (body["events"][-1]["id"] if body["events"] else after)
        if not body["events"]:
            break
        after = body["next_after"]

    assert seen == visible
    first = web.get(URL).json()["events"][0]
    assert set(first) >= {"id", "topic", "ui_actions", "trigger_reload", "refresh_topic", "created_at"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"after": "-1"}, "after"),
        ({"after": "abc"}, "after"),
        ({"limit": "0"}, "limit"),
        ({"limit": "501"}, "limit"),
        ({"limit": "viele"}, "limit"),
    ],
)
def test_cursor_rejects_bad_input(web, query, field):
    response = web.get(URL, query)
    assert response.status_code == 400
    assert field in response.json()


@pytest.mark.django_db
def test_cursor_and_stream_need_login(client):
    assert client.get(URL).status_code in (401, 403)
    assert client.get(STREAM_URL).status_code in (401, 403)


@pytest.mark.django_db
@pytest.mark.parametrize("count", [1, 60])
def test_cursor_query_count_does_not_grow_with_events(web, layer, count, django_assert_max_num_queries):
    for i in range(count):
        record_mutation(audience="all", topic=f"a.n{i}")
    # session + user + the event query (the settle check is a subquery of it)
    with django_assert_max_num_queries(3):
        response = web.get(URL, {"limit": 100})
    assert len(response.json()["events"]) == count


# --- SSE ------------------------------------------------------------------------------------
class SSEClient:
    """Drives the real ASGI app like a browser: can read the stream and then hang up."""

    def __init__(self, path: str, cookie: bytes | None, headers: list[tuple[bytes, bytes]] = ()) -> None:
        path, _, query = path.partition("?")
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", b"localhost"), *([(b"cookie", cookie)] if cookie else []), *headers],
            "client": ("127.0.0.1", 50000),
            "server": ("localhost", 80),
        }
        self.sent: asyncio.Queue = asyncio.Queue()
        self.hang_up = asyncio.Event()
        self.requested = False
        self.buffer = ""

    async def __aenter__(self) -> SSEClient:
        self.task = asyncio.create_task(application(self.scope, self._receive, self.sent.put))
        self.start = await asyncio.wait_for(self.sent.get(), 10)
        return self

    async def __aexit__(self, *exc) -> None:
        self.hang_up.set()
        await asyncio.wait_for(self.task, 10)  # the stream must end when the client leaves

    async def _receive(self) -> dict:
        if not self.requested:
            self.requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.hang_up.wait()
        return {"type": "http.disconnect"}

    @property
    def status(self) -> int:
        return self.start["status"]

    @property
    def headers(self) -> dict[bytes, bytes]:
        return dict(self.start["headers"])

    async def read_until(self, pattern: str, timeout: float = 10) -> str:
        """Read body chunks until `pattern` matches the text so far (bounded by `timeout`)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not re.search(pattern, self.buffer, re.S):
            message = await asyncio.wait_for(self.sent.get(), max(0.01, deadline - loop.time()))
            self.buffer += message.get("body", b"").decode()
        return self.buffer

    def event_ids(self) -> list[int]:
        return [int(n) for n in re.findall(r"^id: (\d+)\nevent: mutation$", self.buffer, re.M)]


def _record(**kwargs):
    return database_sync_to_async(record_mutation)(**kwargs)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_stream_sends_missed_then_live_events_and_ends_on_disconnect():
    user, other = await database_sync_to_async(UserFactory)(), await database_sync_to_async(UserFactory)()
    cookie = await database_sync_to_async(session_cookie)(user)
    first = await _record(audience="all", topic="aufgaben.task.created")
    await _record(audience="user", user=other, topic="notizen.note.secret")
    second = await _record(audience="user", user=user, topic="notizen.note.mine")

    async with SSEClient(f"{STREAM_URL}?after={first.id - 1}", cookie) as stream:
        assert stream.status == 200
        assert stream.headers[b"Content-Type"].startswith(b"text/event-stream")
        await stream.read_until(rf"id: {second.id}\n")
        assert stream.buffer.startswith("retry: ")
        live = await _record(audience="all", topic="aufgaben.task.updated")
        await stream.read_until(rf"id: {live.id}\n")
        assert stream.event_ids() == [first.id, second.id, live.id]
        assert '"topic":"notizen.note.secret"' not in stream.buffer


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_stream_resumes_from_last_event_id_header():
    user = await database_sync_to_async(UserFactory)()
    cookie = await database_sync_to_async(session_cookie)(user)
    events = [await _record(audience="all", topic=f"a.n{i}") for i in range(3)]

    headers = [(b"last-event-id", str(events[1].id).encode())]
    async with SSEClient(f"{STREAM_URL}?after=0", cookie, headers) as stream:
        await stream.read_until(rf"id: {events[2].id}\nevent")
        assert stream.event_ids() == [events[2].id]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_stream_without_cursor_starts_at_the_newest_event():
    user = await database_sync_to_async(UserFactory)()
    cookie = await database_sync_to_async(session_cookie)(user)
    old = await _record(audience="all", topic="a.old")

    async with SSEClient(STREAM_URL, cookie) as stream:
        await stream.read_until(rf"retry: \d+\nid: {old.id}\n\n")  # Last-Event-ID starts at the head
        new = await _record(audience="all", topic="a.new")
        await stream.read_until(rf"id: {new.id}\nevent")
        assert stream.event_ids() == [new.id]


@pytest.mark.django_db
def test_stream_rejects_a_bad_cursor(user):
    client = Client()
    client.force_login(user)
    response = client.get(STREAM_URL, {"after": "x"})
    assert response.status_code == 400 and "after" in response.json()
    response = client.get(STREAM_URL, headers={"last-event-id": "-3"})
    assert response.status_code == 400 and "last_event_id" in response.json()
