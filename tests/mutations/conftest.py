"""Fixtures of the mutation tests: users, a recording channel layer, session cookies."""

from __future__ import annotations

import time

import pytest

from apps.core.realtime import layer as layer_module


class RecordingLayer:
    """Stands in for the channel layer where a test checks *what* is published, not transport."""

    def __init__(self) -> None:
        self._sent: list[tuple[str, dict]] = []

    @property
    def sent(self) -> list[tuple[str, dict]]:
        layer_module.sender.drain()  # sends from sync code go through the sender thread
        return self._sent

    async def group_send(self, group: str, message: dict) -> None:
        self._sent.append((group, message))


@pytest.fixture(autouse=True)
def no_other_writer(request):
    """Readers hold back an event while another transaction of the database that was running at
    its insert still runs (`visible_events`, settled). Tests that expect their events at once
    wait until no other session of the test database holds a transaction: a background job of an
    earlier test may still be finishing. One that stays names itself in the failure."""
    if request.node.get_closest_marker("django_db") is None:
        yield
        return
    from django.db import connection

    deadline = time.monotonic() + 15
    while True:
        with connection.cursor() as cur:
            cur.execute("SELECT pg_stat_clear_snapshot()")
            cur.execute(
                "SELECT pid, application_name, state, left(query, 160) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND backend_xid IS NOT NULL"
            )
            others = cur.fetchall()
        if not others:
            break
        if time.monotonic() > deadline:
            pytest.fail(f"another session of the test database keeps a transaction open: {others}")
        time.sleep(0.1)
    yield


@pytest.fixture
def layer(monkeypatch) -> RecordingLayer:
    recording = RecordingLayer()
    monkeypatch.setattr(layer_module, "get_channel_layer", lambda: recording)
    return recording


@pytest.fixture
def other_user(db):
    from tests.factories import UserFactory

    return UserFactory()


@pytest.fixture
def third_user(db):
    from tests.factories import UserFactory

    return UserFactory()


def session_cookie(user) -> bytes:
    """A signed-in session for raw ASGI tests (WebSocket, SSE)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()
