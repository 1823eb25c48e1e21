"""Fixtures of the mutation tests: users, a recording channel layer, session cookies."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio

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


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Users are created in most tests here; PBKDF2 made user setup take seconds."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel-layer instance per test: every async test runs its own event loop, and
    channels-postgres binds its listener task and connection pool to the loop that first used
    them (on a foreign loop it restarts its listener on every receive and re-queues messages)."""
    from channels import layers

    def reset() -> None:
        # Sends queued from sync code by an earlier test must not rebuild the pool on the
        # sender's loop after this reset.
        layer_module.sender.drain()
        layers.channel_layers.backends.clear()
        try:
            import channels_postgres.db
        except ImportError:  # pragma: no cover - the Redis layer needs no reset
            return
        channels_postgres.db.connection_pool = None
        channels_postgres.db.is_creating_connection_pool = asyncio.Lock()

    reset()
    yield
    reset()


@pytest_asyncio.fixture
async def close_channel_layer():
    """Async tests: close the channels-postgres pool on the test's own loop before the loop
    closes (cancelling its workers at loop shutdown can hang)."""
    yield
    try:
        import channels_postgres.db
    except ImportError:  # pragma: no cover
        return
    pool = channels_postgres.db.connection_pool
    if pool is not None:
        await pool.close(timeout=2)
        channels_postgres.db.connection_pool = None


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
