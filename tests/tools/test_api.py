"""POST /api/v1/tools/execute and GET /api/v1/tools: the API-key surface of the dispatcher."""

import json

import pytest
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.core.models import InstanceSetting
from apps.tools import gating
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/tools/execute"


@pytest.fixture
def creator():
    return UserFactory(role="admin", is_superuser=True, email="chef@kanzlei.example")


def client_with(creator, scopes=("tools:execute",)):
    _, plaintext = keys.create_api_key(Principal.for_user(creator), name="cli", scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client


def post(client, body, **extra):
    return client.post(URL, data=json.dumps(body), content_type="application/json", **extra)


def test_executes_as_the_key_creator_and_ignores_identity_fields(creator):
    other = UserFactory(email="someone@kanzlei.example")
    client = client_with(creator)
    response = post(
        client,
        {"tool": "testkit_write", "arguments": {"key": "via-api"}, "userId": other.pk, "principal": "admin"},
    )
    assert response.status_code == 200, response.content
    assert response.json()["ok"] is True
    assert InstanceSetting.objects.get(key="via-api").value == {"by": str(creator)}
    status = post(client, {"tool": "clapilot_context_status", "arguments": {}, "user_id": other.pk}).json()
    assert status["output"]["user"]["email"] == "chef@kanzlei.example"
    assert status["output"]["surface"] == "api"


@pytest.mark.parametrize(
    ("body", "http", "code"),
    [
        ({"tool": "nope", "arguments": {}}, 404, "unknown_tool"),
        ({"tool": "testkit_echo", "arguments": {"text": 7}}, 400, "invalid_arguments"),
        ({"tool": "testkit_write", "arguments": {"key": "x", "fail": "domain"}}, 400, "testkit_failure"),
        (
            {"tool": "testkit_write", "arguments": {"key": "y", "fail": "crash"}},
            500,
            "CLAPILOT_TOOL_EXECUTION_FAILED",
        ),
        ({"arguments": {}}, 400, "invalid_request"),
        ({"tool": "testkit_echo", "arguments": {"text": "a"}, "idempotency_key": 5}, 400, "invalid_request"),
    ],
)
def test_failures_map_to_stable_codes_and_statuses(creator, body, http, code):
    response = post(client_with(creator), body)
    assert response.status_code == http
    data = response.json()
    assert (data["ok"], data["code"]) == (False, code)
    assert "Traceback" not in response.content.decode() and "hunter2" not in response.content.decode()
    assert not InstanceSetting.objects.filter(key__in=["x", "y"]).exists()


def test_malformed_json(creator):
    response = client_with(creator).post(URL, data="{oops", content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_json"


def test_oversized_payload_is_refused(creator, settings):
    settings.CLAPILOT_TOOL_PAYLOAD_MAX_BYTES = 1000
    response = post(client_with(creator), {"tool": "testkit_echo", "arguments": {"text": "a" * 2000}})
    assert response.status_code == 413 and response.json()["code"] == "payload_too_large"


def test_gated_module_is_403(creator):
    gating.set_installed("testmodule", False)
    response = post(client_with(creator), {"tool": "testkit_gated", "arguments": {}})
    assert response.status_code == 403 and response.json()["code"] == "module_not_installed:testmodule"
    gating.invalidate()


def test_key_without_tools_scope_is_refused(creator):
    response = post(
        client_with(creator, scopes=("memory:read",)), {"tool": "session_status", "arguments": {}}
    )
    assert response.status_code == 403


def test_revoked_key_is_401(creator):
    key, plaintext = keys.create_api_key(Principal.for_user(creator), name="old", scopes=["tools:execute"])
    keys.revoke_api_key(Principal.for_user(creator), prefix=key.prefix)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert post(client, {"tool": "session_status", "arguments": {}}).status_code == 401


def test_anonymous_is_401():
    assert post(APIClient(), {"tool": "session_status", "arguments": {}}).status_code in (401, 403)


def test_idempotency_key_returns_the_first_result(creator):
    client = client_with(creator)
    body = {"tool": "testkit_write", "arguments": {"key": "once"}, "idempotency_key": "abc-1"}
    first = post(client, body)
    second = post(client, body)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert second["Idempotent-Replayed"] == "true"
    assert InstanceSetting.objects.filter(key="once").count() == 1
    changed = post(client, {**body, "arguments": {"key": "other"}})
    assert changed.status_code == 409 and changed.json()["code"] == "idempotency_key_reused"


def test_catalog_lists_callable_tools_with_schemas(creator):
    gating.set_installed("testmodule", False)
    data = client_with(creator).get("/api/v1/tools").json()
    names = {t["name"] for t in data["tools"]}
    assert {"testkit_echo", "tool_catalog_search"} <= names
    assert "testkit_gated" not in names and "testkit_live_only" not in names
    echo = next(t for t in data["tools"] if t["name"] == "testkit_echo")
    assert echo["parameters"]["additionalProperties"] is False
    gating.invalidate()


def test_openapi_schema_documents_the_tool_endpoints(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/v1/tools/execute" in response.content
