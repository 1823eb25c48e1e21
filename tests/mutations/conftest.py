"""Fixtures of the mutation tests: users, a recording channel layer, session cookies."""

from __future__ import annotations

import pytest

from apps.core import layer as layer_module


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
