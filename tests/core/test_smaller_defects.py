"""Issue 25, point 8: the smaller defects, each reproduced first.

* `OPTIONS /api/v1/chat/runs/<id>/events/stream` answered 500 (KeyError: the stream view read the
  gate's GET data from DRF's OPTIONS metadata); the UI mutation stream had the same code.
* `/mcp/` took 4 MiB bodies while `POST /api/v1/tools/execute` caps 256 KB.
* backups were written 0644 in a 0755 folder (they hold password hashes and private memories).
* a malformed multipart body got a bare 400 without the project's JSON error.
* the MCP refusal named `tools:execute` where `memory:write` was missing
  (tests/mcp_server/test_memory.py); a repeated memory store answered 201 (tests/memory/test_api.py).
* `/healthz` answered 503 for the first seconds after start without saying "starting".
"""

from __future__ import annotations

import asyncio
import json
import stat

import pytest
from rest_framework.test import APIClient

from apps.agent.models import ChatSession, Run
from apps.apikeys.services import issue_device_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(anna):
    _, token = issue_device_token(anna, "Annas iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


# --- OPTIONS on the event streams ---------------------------------------------------------------
def test_options_on_the_run_event_stream_answers_the_metadata_not_500(api, anna):
    session = ChatSession.objects.create(user=anna, title="x")
    run = Run.objects.create(session=session, user=anna, status=Run.Status.COMPLETED)
    response = api.options(f"/api/v1/chat/runs/{run.pk}/events/stream")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/json")
    assert "text/event-stream" not in response["Content-Type"]
    assert api.options("/api/ui-mutation-events/stream").status_code == 200
    anonymous = APIClient().options(f"/api/v1/chat/runs/{run.pk}/events/stream")
    assert anonymous.status_code == 401 and anonymous.json()["code"]


def test_get_on_the_run_event_stream_still_streams(api, anna):
    session = ChatSession.objects.create(user=anna, title="x")
    run = Run.objects.create(session=session, user=anna, status=Run.Status.COMPLETED)
    response = api.get(f"/api/v1/chat/runs/{run.pk}/events/stream")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")


# --- /mcp/ body cap ---------------------------------------------------------------------------
def _mcp(chunks: list[bytes], headers: tuple = ()) -> tuple[int, bytes]:
    from apps.mcp_server.http import McpApp

    sent: list[dict] = []
    pending = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]

    async def receive():
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp/",
        "headers": [(k.encode(), v.encode()) for k, v in (("host", "127.0.0.1:8000"), *headers)],
    }
    asyncio.run(McpApp()(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_mcp_refuses_a_body_over_the_tool_payload_limit(settings):
    limit = settings.CLAPILOT_TOOL_PAYLOAD_MAX_BYTES
    big = b"x" * (4 * 1024 * 1024)
    for chunks, headers in (
        ([big], (("content-length", str(len(big))),)),  # declared
        ([b"x" * 65536] * 64, ()),  # chunked: no length announced, 4 MiB arrive
    ):
        status, body = _mcp(chunks, headers)
        assert status == 413, body[:200]
        error = json.loads(body)
        assert error["jsonrpc"] == "2.0" and error["error"]["code"] == -32600
        assert str(limit) in error["error"]["message"]


def test_mcp_passes_a_body_within_the_limit_on_to_the_key_check():
    status, body = _mcp([b'{"jsonrpc": "2.0", ', b'"id": 1, "method": "tools/list"}'])
    assert status == 401 and json.loads(body)["error"]["message"] == "Unauthorized"


# --- backups are private ----------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_a_backup_is_owner_only_in_an_owner_only_folder(settings, tmp_path):
    import os

    from apps.ops.backup import create_backup

    settings.VAR_DIR = tmp_path / "var"
    settings.MEDIA_ROOT = tmp_path / "media"
    old = os.umask(0o022)  # the usual umask: what made them 0644 / 0755
    try:
        result = create_backup()
    finally:
        os.umask(old)
    assert result.path.parent == tmp_path / "var" / "backups"
    assert stat.S_IMODE(result.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(result.path.parent.stat().st_mode) == 0o700
    # a folder created for a path the operator named is owner-only too
    os.umask(0o022)
    try:
        named = create_backup(tmp_path / "elsewhere" / "b.tar")
    finally:
        os.umask(old)
    assert stat.S_IMODE(named.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(named.path.parent.stat().st_mode) == 0o700


# --- malformed multipart ----------------------------------------------------------------------
MALFORMED = [
    ("multipart/form-data; boundary=b0undary", b"garbage without any boundary"),
    ("multipart/form-data", b"--x\r\n"),  # no boundary parameter at all
    ('multipart/form-data; boundary=""', b"--x\r\n"),
]


@pytest.mark.django_db(transaction=True)
def test_a_malformed_multipart_body_gets_the_json_error_under_daphne(tmp_path):
    """Before: daphne's Twisted request parsed the form itself and answered a bare 400 (no
    headers, no body) and closed the connection; Django never saw the request."""
    import http.client

    from tests.factories import UserFactory
    from tests.live import live_daphne

    _, token = issue_device_token(UserFactory(email="multipart@kanzlei.example"), "x")
    answers = []
    with live_daphne(tmp_path) as server:
        for content_type, body in MALFORMED:
            for path in ("/api/v1/documents/", "/api/v1/tasks/"):
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                headers = {"Content-Type": content_type, "Authorization": f"Token {token}"}
                conn.request("POST", path, body, headers)
                response = conn.getresponse()
                answers.append(
                    (path, content_type, response.status, response.getheader("Content-Type"), response.read())
                )
                conn.close()
    for path, content_type, status, media_type, raw in answers:
        assert status == 400 and media_type == "application/json", (path, content_type, status, raw)
        error = json.loads(raw)
        assert error["code"] and error["message"] and "details" in error, (path, content_type, error)


# --- /healthz while starting ------------------------------------------------------------------
def test_healthz_says_starting_until_the_first_heartbeat_after_start(client, monkeypatch):
    import time

    from apps.core.services import record_heartbeat
    from apps.ops import health

    health.forget()
    monkeypatch.setattr(health, "PROCESS_STARTED", time.time())  # just started
    response = client.get("/healthz")
    data = response.json()
    assert response.status_code == 503 and data["status"] == "starting", data
    assert data["failing"] == ["heartbeat"] and "first heartbeat" in data["checks"]["heartbeat"]["detail"]
    record_heartbeat("beat")
    health.forget()
    assert client.get("/healthz").json()["status"] == "ok"


def test_healthz_is_degraded_not_starting_once_the_grace_has_passed(client, monkeypatch):
    import time

    from apps.ops import health

    health.forget()
    monkeypatch.setattr(health, "PROCESS_STARTED", time.time() - 3600)
    data = client.get("/healthz").json()
    assert data["status"] == "degraded" and data["failing"] == ["heartbeat"]


# --- the MCP scope refusal names the missing scope ----------------------------------------------
def test_the_mcp_refusal_names_the_scope_the_key_lacks(admin_user):
    from apps.accounts.principal import Principal
    from apps.apikeys import services
    from apps.mcp_server import access
    from apps.mcp_server.server import _called

    _key, plaintext = services.create_api_key(
        Principal.for_user(admin_user), name="MCP", scopes=["memory:read"]
    )
    store = ("memory_store", {"text": "Mandant Huber zahlt quartalsweise."}, None)
    type(admin_user).objects.filter(pk=admin_user.pk).update(language="en")
    refused = _called(access.authenticate(f"Bearer {plaintext}"), *store)
    assert not refused.ok and refused.code == "forbidden"
    assert refused.message == "The API key lacks the scope “memory:write” (or “tools:execute”)."
    type(admin_user).objects.filter(pk=admin_user.pk).update(language="de")
    german = _called(access.authenticate(f"Bearer {plaintext}"), *store)
    assert german.message == "Dem API-Schlüssel fehlt die Berechtigung „memory:write“ (oder „tools:execute“)."
    from apps.memory.models import Memory

    assert Memory.objects.count() == 0


def test_the_dispatcher_refusal_names_the_scope_the_key_lacks(admin_user):
    """Any surface that passes an API key's scopes gets the tool's own scope named."""
    from django.utils import translation

    from apps.accounts.principal import Principal
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    type(admin_user).objects.filter(pk=admin_user.pk).update(language="en")
    admin_user.refresh_from_db()
    ctx = ToolContext(Principal.for_user(admin_user), surface="api", scopes=frozenset({"memory:read"}))
    with translation.override("en"):
        refused = dispatch("memory_store", {"text": "Mandant Huber zahlt quartalsweise."}, ctx)
    assert not refused.ok and refused.code == "forbidden"
    assert refused.message == "The API key lacks the scope “memory:write” (or “tools:execute”)."
