"""A live daphne serving /mcp/ on the test database, and MCP clients from the `mcp` SDK for it.

Every HTTP exchange of a client is recorded (`Recorder`), so a test can look at each response
the server sent, e.g. for the key.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from apps.accounts.principal import Principal
from apps.apikeys import services
from tests.factories import UserFactory

ALLOWED_ORIGIN = "http://inspector.test"
RATE_PER_MINUTE = 30  # per key, for the one server of the session: each test uses fresh keys


@dataclass
class Recorder(httpx2.AsyncBaseTransport):
    """An HTTP transport that keeps every response (status, headers, body) it passed on."""

    inner: httpx2.AsyncBaseTransport = field(default_factory=httpx2.AsyncHTTPTransport)
    responses: list[tuple[int, str, bytes]] = field(default_factory=list)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        self.responses.append((response.status_code, headers, body))
        return httpx2.Response(response.status_code, headers=response.headers, content=body, request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def everything(self) -> str:
        return "\n".join(f"{s}\n{h}\n{b.decode(errors='replace')}" for s, h, b in self.responses)


@pytest.fixture(scope="session")
def mcp_server(django_db_setup, tmp_path_factory):
    from tests.live import live_daphne

    env = {
        "CLAPILOT_API_KEY_RATE": f"{RATE_PER_MINUTE}/min",
        "CLAPILOT_MCP_ALLOWED_ORIGINS": ALLOWED_ORIGIN,
    }
    with live_daphne(tmp_path_factory.mktemp("mcp"), env) as server:
        yield server
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log and "ERROR" not in log, log[-4000:]  # nothing failed unexpectedly


@pytest.fixture
def mcp_url(mcp_server) -> str:
    return f"{mcp_server.url}/mcp/"


@pytest.fixture
def office_admin(transactional_db):
    return UserFactory(role="admin", is_superuser=True, language="en")


@pytest.fixture
def make_key(office_admin):
    """make_key(*scopes, user=...) → the plaintext key of a fresh key."""

    def make(*scopes: str, user=None) -> str:
        _key, plaintext = services.create_api_key(
            Principal.for_user(user or office_admin), name="MCP test", scopes=list(scopes)
        )
        return plaintext

    return make


@pytest.fixture
def connect(mcp_url):
    """`async with connect(key, mode=...) as (client, recorder)`: an SDK client over Streamable
    HTTP with `Authorization: Bearer <key>` (mode "legacy": the initialize handshake; "auto": the
    2026-07-28 per-request protocol)."""

    @asynccontextmanager
    async def open_client(key: str | None, *, mode: str = "legacy", headers: dict | None = None):
        recorder = Recorder()
        sent = {"Authorization": f"Bearer {key}"} if key else {}
        http = httpx2.AsyncClient(
            headers={**sent, **(headers or {})}, transport=recorder, timeout=httpx2.Timeout(30, read=60)
        )
        async with http, Client(streamable_http_client(mcp_url, http_client=http), mode=mode) as client:
            yield client, recorder

    return open_client
