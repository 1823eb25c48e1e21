"""The gate and the handlers in-process: Host/Origin rules, routing, and that an unexpected failure
leaves no detail (the live behaviour is in test_live.py)."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from apps.mcp_server import access
from apps.mcp_server.http import McpApp, McpMount
from apps.mcp_server.server import build_server


def asgi(app, path="/mcp/", method="POST", headers=()) -> tuple[int, dict, bytes]:
    """One request through an ASGI app; (status, headers, body)."""
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.lower().encode(), v.encode()) for k, v in (("host", "127.0.0.1:8000"), *headers)],
    }
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


@pytest.mark.parametrize(
    ("allowed", "host", "ok"),
    [
        (["clapilot.example"], "clapilot.example", True),
        (["clapilot.example"], "clapilot.example:8443", True),
        (["clapilot.example"], "evil.example", False),
        ([".kanzlei.example"], "clapilot.kanzlei.example", True),
        ([".kanzlei.example"], "kanzlei.example.evil.example", False),
        (["clapilot.example"], "", False),
        (["clapilot.example"], None, False),
    ],
)
def test_host_follows_allowed_hosts(settings, allowed, host, ok):
    settings.ALLOWED_HOSTS = allowed
    assert access.host_allowed(host) is ok


def test_origin_is_absent_or_listed(settings):
    settings.CLAPILOT_MCP_ALLOWED_ORIGINS = ["https://Inspector.example/"]
    assert access.origin_allowed(None)
    assert access.origin_allowed("https://inspector.example")
    assert not access.origin_allowed("https://inspector.example.evil.example")
    assert not access.origin_allowed("null")
    assert not access.origin_allowed("")


def test_only_mcp_paths_reach_the_mcp_server():
    async def django(scope, receive, send):
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    mount = McpMount(django)
    assert asgi(mount, "/mcpx")[0] == 204
    assert asgi(mount, "/api/v1/tools")[0] == 204
    assert asgi(mount, "/mcp/")[0] == 401 and asgi(mount, "/mcp")[0] == 401


def test_a_failing_key_check_is_503_without_detail(monkeypatch):
    def broken(header):
        raise RuntimeError("connection to server at db.internal:5432 failed")

    monkeypatch.setattr(access, "authenticate", broken)
    status, headers, body = asgi(McpApp(), headers=(("authorization", "Bearer clp_aaaaaaaa.secret"),))
    assert status == 503 and headers["retry-after"] == "5"
    assert json.loads(body)["error"]["message"] == "Service unavailable"
    assert b"db.internal" not in body and b"secret" not in body


def test_an_unexpected_failure_in_a_handler_is_a_bare_internal_error():
    async def go():
        # In-process there is no HTTP request and so no caller: the handler fails unexpectedly.
        async with Client(build_server(), mode="legacy") as client:
            await client.list_tools()

    with pytest.raises(BaseException) as raised:
        asyncio.run(go())
    error = raised.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, MCPError)
    assert error.error.message == "Internal error" and "caller" not in str(error.error)
