"""Request bodies are judged by the bytes actually received, also when they come chunked.

Against a real daphne (the in-process test client always sends Content-Length): a body sent with
`Transfer-Encoding: chunked` has no length header, and before the fix DRF read it as empty (a
valid task → 400 "title required"), the multipart parser found no file, and every limit that reads
CONTENT_LENGTH (the 256 KB tool payload, DATA_UPLOAD_MAX_MEMORY_SIZE, the upload limit) let it
through (1 MB of tool call → 200)."""

from __future__ import annotations

import http.client
import json
import uuid
from urllib.parse import urlsplit

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.tasks.models import Board, Task, TaskStatus
from tests.e2e.conftest import server  # noqa: F401 - the live daphne fixture
from tests.factories import UserFactory


def _send(
    base: str, method: str, path: str, body: bytes, headers: dict, *, chunked: bool
) -> tuple[int, dict]:
    """One request; a chunked body goes out in 64 KB chunks without a Content-Length."""
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        if chunked:
            pieces = [body[i : i + 65536] for i in range(0, len(body), 65536)] or [b""]
            conn.request(method, path, body=iter(pieces), headers=headers, encode_chunked=True)
        else:
            conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        assert response.getheader("Content-Type", "").startswith("application/json"), raw[:300]
        return response.status, json.loads(raw)
    finally:
        conn.close()


def _multipart(filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            f"Content-Type: text/plain\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


@pytest.fixture
def office(transactional_db):
    """A staff member with a device token, an admin key for tools, a shared board with statuses."""
    staff = UserFactory(language="en")
    admin = UserFactory(role="admin", is_superuser=True, language="en")
    _token, device = keys.issue_device_token(staff, "Laptop")
    _key, api_key = keys.create_api_key(Principal.for_user(admin), name="tools", scopes=["tools:execute"])
    board = Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    TaskStatus.objects.create(key="offen", name="Offen", category="open", sort_order=0)
    return {
        "staff": {"Authorization": f"Token {device}"},
        "tools": {"Authorization": f"Bearer {api_key}"},
        "board": board,
    }


def test_chunked_json_bodies_are_read_and_limited_like_sized_ones(server, office):  # noqa: F811
    json_headers = {"Content-Type": "application/json"}
    task = json.dumps({"title": "Belege anfordern", "board_id": office["board"].pk}).encode()
    for chunked in (False, True):
        status, body = _send(
            server, "POST", "/api/v1/tasks/", task, {**office["staff"], **json_headers}, chunked=chunked
        )
        assert status == 201, body
    assert Task.objects.filter(title="Belege anfordern").count() == 2

    # The tool endpoint's own limit (256 KB), in its result envelope, on the bytes received.
    call = {"tool": "aufgaben_list_tasks", "arguments": {"query": "x" * (1024 * 1024)}}
    payload = json.dumps(call).encode()
    for chunked in (False, True):
        status, body = _send(
            server,
            "POST",
            "/api/v1/tools/execute",
            payload,
            {**office["tools"], **json_headers},
            chunked=chunked,
        )
        assert (status, body["ok"], body["code"]) == (413, False, "payload_too_large")

    # Every other body: DATA_UPLOAD_MAX_MEMORY_SIZE (2 MB), refused before any view runs.
    big = json.dumps({"title": "x", "description": "y" * (3 * 1024 * 1024)}).encode()
    for chunked in (False, True):
        status, body = _send(
            server, "POST", "/api/v1/tasks/", big, {**office["staff"], **json_headers}, chunked=chunked
        )
        assert status == 413 and body["code"] == "payload_too_large"
        assert body["details"]["max_bytes"] == 2 * 1024 * 1024
    assert not Task.objects.filter(title="x").exists()


def test_chunked_uploads_arrive_and_meet_the_upload_limit(server, office):  # noqa: F811
    from apps.core.services import set_setting
    from apps.documents import storage
    from apps.documents.models import Document

    body, content_type = _multipart("brief.txt", b"Sehr geehrte Damen und Herren,\n" * 100)
    headers = {**office["staff"], "Content-Type": content_type}
    status, answer = _send(server, "POST", "/api/v1/documents/", body, headers, chunked=True)
    assert status == 201, answer
    assert (
        Document.objects.get(pk=answer["document"]["id"]).size
        == len(b"Sehr geehrte Damen und Herren,\n") * 100
    )

    # Multipart bodies are not held to the 2 MB of other bodies, but to the upload limit.
    set_setting(storage.MAX_SETTING, 1000)
    over, over_type = _multipart("gross.txt", b"x" * (3 * 1024 * 1024))
    status, answer = _send(
        server,
        "POST",
        "/api/v1/documents/",
        over,
        {**office["staff"], "Content-Type": over_type},
        chunked=True,
    )
    assert status == 413 and answer["code"] == "file_too_large"
    assert Document.objects.count() == 1
