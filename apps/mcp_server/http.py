"""The MCP server's ASGI side: `/mcp/` mounted in front of Django (clapilot/asgi.py).

Every request passes the gate first: Host in ALLOWED_HOSTS and Origin (if any) in
CLAPILOT_MCP_ALLOWED_ORIGINS, else refused before anything else (DNS rebinding); POST only, else
405; a body of at most CLAPILOT_TOOL_PAYLOAD_MAX_BYTES (as the REST tool endpoint), else 413 with
a JSON-RPC error; then the API key from `Authorization: Bearer`, else 401 with the same body for every reason;
then the key's rate limit, else 429 with Retry-After. Only then does the SDK's Streamable HTTP
transport see the request.

The transport runs stateless with JSON responses: each POST stands alone and authenticates on
its own (a revoked key stops at once, any number of daphne processes can serve, nothing to
resume), and no server-to-client requests are needed. Daphne sends no ASGI lifespan events, so
the SDK's session manager (whose task group runs the requests) is started on the first request
of each event loop instead.
"""

from __future__ import annotations

import asyncio
import json
import logging

from asgiref.sync import ThreadSensitiveContext
from channels.db import database_sync_to_async
from django.conf import settings
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from apps.mcp_server import access
from apps.mcp_server.server import CALLER, build_server

logger = logging.getLogger(__name__)

PATHS = frozenset({"/mcp", "/mcp/"})

_UNAUTHORIZED = json.dumps(
    {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Unauthorized"}}
).encode()


async def _refuse(
    send: Send, status: int, body: bytes, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _error(message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()


async def _read_body(headers: Headers, receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None when it is (or says it is) larger than `limit`: the same cap as
    `POST /api/v1/tools/execute` (CLAPILOT_TOOL_PAYLOAD_MAX_BYTES), judged by the bytes received,
    whatever Content-Length claims (a chunked body has none)."""
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replayed(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the transport the body already read, then waits as the original."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> dict:
        return pending.pop() if pending else await receive()

    return replay


class _ManagerPerLoop:
    """The SDK's session manager, running (its task group entered) in the current event loop."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started: asyncio.Event | None = None
        self._manager: StreamableHTTPSessionManager | None = None
        self._task: asyncio.Task | None = None  # held so the running manager is not collected

    async def get(self) -> StreamableHTTPSessionManager:
        loop = asyncio.get_running_loop()
        ended = self._task is not None and self._task.done()  # (a manager cannot be restarted)
        if self._loop is not loop or ended:  # no await before these assignments: one per loop
            self._loop, self._started = loop, asyncio.Event()
            self._manager = StreamableHTTPSessionManager(
                app=build_server(),
                stateless=True,
                json_response=True,
                # Host and Origin are checked by the gate, with Django's ALLOWED_HOSTS semantics
                # (wildcards, subdomains) that the SDK's own lists cannot express.
                security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            )
            self._task = loop.create_task(self._run(self._manager, self._started))
        await self._started.wait()
        return self._manager

    @staticmethod
    async def _run(manager: StreamableHTTPSessionManager, started: asyncio.Event) -> None:
        async with manager.run():
            started.set()
            await asyncio.Event().wait()  # until the loop ends


class McpApp:
    """The gate in front of the SDK's Streamable HTTP transport."""

    def __init__(self) -> None:
        self.managers = _ManagerPerLoop()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        if not access.host_allowed(headers.get("host")):
            await _refuse(send, 421, _error("Invalid Host header"))
            return
        if not access.origin_allowed(headers.get("origin")):
            await _refuse(send, 403, _error("Invalid Origin header"))
            return
        if scope["method"] != "POST":  # stateless: no stream to GET, no session to DELETE
            await _refuse(send, 405, _error("Method not allowed"), ((b"allow", b"POST"),))
            return
        body = await _read_body(headers, receive, settings.CLAPILOT_TOOL_PAYLOAD_MAX_BYTES)
        if body is None:
            limit = settings.CLAPILOT_TOOL_PAYLOAD_MAX_BYTES
            await _refuse(send, 413, _error(f"Request body larger than {limit} bytes"))
            return
        receive = _replayed(body, receive)
        # Each request's synchronous work (key lookup, tools) in a thread of its own, as Django does.
        async with ThreadSensitiveContext():
            try:
                caller = await database_sync_to_async(access.authenticate)(headers.get("authorization"))
            except Exception:  # e.g. the database unreachable: no detail leaves the server
                logger.exception("MCP: could not check an API key")
                await _refuse(send, 503, _error("Service unavailable"), ((b"retry-after", b"5"),))
                return
            if caller is None:
                await _refuse(send, 401, _UNAUTHORIZED, ((b"www-authenticate", b'Bearer realm="mcp"'),))
                return
            if caller.retry_after is not None:
                retry = str(caller.retry_after).encode()
                await _refuse(send, 429, _error("Too many requests"), ((b"retry-after", retry),))
                return
            manager = await self.managers.get()
            await manager.handle_request({**scope, CALLER: caller}, receive, send)


class McpMount:
    """HTTP requests for /mcp or /mcp/ go to the MCP server, everything else to `app` (Django)."""

    def __init__(self, app: ASGIApp, mcp: ASGIApp | None = None) -> None:
        self.app = app
        self.mcp = mcp or McpApp()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in PATHS:
            await self.mcp(scope, receive, send)
        else:
            await self.app(scope, receive, send)
