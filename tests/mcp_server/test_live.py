"""The MCP server under a live daphne, with MCP clients from the `mcp` SDK over Streamable HTTP:
what a tools:execute key sees and may call (memory keys: test_memory.py), the gate (401, Host,
Origin, methods, rate limit) and that the key never comes back in any response."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from apps.accounts.principal import Principal
from apps.apikeys import services
from apps.tools.models import ToolExecution
from tests.factories import UserFactory
from tests.mcp_server.conftest import ALLOWED_ORIGIN, RATE_PER_MINUTE

pytestmark = pytest.mark.django_db(transaction=True)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def post(url: str, headers: dict | None = None) -> httpx2.Response:
    return httpx2.post(url, json=INITIALIZE, headers={**ACCEPT, **(headers or {})}, timeout=30)


def listed(connect, key: str, mode: str = "legacy") -> set[str]:
    async def go():
        async with connect(key, mode=mode) as (client, _):
            return {t.name for t in (await client.list_tools()).tools}

    return asyncio.run(go())


def call(connect, key: str, name: str, arguments: dict, mode: str = "legacy"):
    async def go():
        async with connect(key, mode=mode) as (client, recorder):
            return await client.call_tool(name, arguments), recorder

    return asyncio.run(go())


def rest_catalog(mcp_server, key: str) -> set[str]:
    response = httpx2.get(f"{mcp_server.url}/api/v1/tools", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200, response.text
    return {t["name"] for t in response.json()["tools"]}


# --- what a key sees ---------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_tools_execute_key_sees_the_catalog_of_the_rest_api(connect, make_key, mcp_server, mode):
    key = make_key("tools:execute")
    names = listed(connect, key, mode)
    assert names == rest_catalog(mcp_server, key)
    assert {"session_status", "tool_catalog_search", "aufgaben_get_task"} <= names
    assert not names & {"request_toolbox", "agent_todo_update"}  # not on the API surface


def test_a_key_whose_creator_is_no_longer_an_administrator_loses_tools_execute(connect, make_key):
    creator = UserFactory(role="admin", is_superuser=True)
    key = make_key("tools:execute", user=creator)
    assert "session_status" in listed(connect, key)
    creator.role = "staff"
    creator.save(update_fields=["role"])
    assert listed(connect, key) == set()
    result, _ = call(connect, key, "session_status", {})
    assert result.is_error and result.structured_content["code"] == "forbidden"


# --- calls -------------------------------------------------------------------------------------
def test_a_call_runs_through_the_dispatcher_as_the_keys_creator(connect, make_key, office_admin):
    result, _ = call(connect, make_key("tools:execute"), "session_status", {}, mode="auto")
    assert not result.is_error
    envelope = result.structured_content
    assert envelope["ok"] is True and envelope["code"] is None
    assert envelope["output"]["surface"] == "api"
    assert envelope["output"]["acting_as"] == Principal.for_user(office_admin).audit_label
    audit = ToolExecution.objects.get(tool="session_status")
    assert (audit.user_id, audit.surface, audit.ok) == (office_admin.pk, "api", True)


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("aufgaben_get_task", {"task_id": 987654}, "task_not_found"),
        ("aufgaben_get_task", {"task_id": "not a number"}, "invalid_arguments"),
        ("no_such_tool", {}, "unknown_tool"),
    ],
)
def test_a_failing_tool_is_an_mcp_tool_error_with_the_stable_code(connect, make_key, name, arguments, code):
    result, _ = call(connect, make_key("tools:execute"), name, arguments)
    assert result.is_error
    assert result.structured_content["ok"] is False and result.structured_content["code"] == code
    assert f'"code": "{code}"' in result.content[0].text  # the same envelope for clients reading text


def test_a_tool_outside_the_keys_scopes_is_refused(connect, make_key):
    result, _ = call(connect, make_key("memory:read"), "session_status", {})
    assert result.is_error and result.structured_content["code"] == "forbidden"
    assert ToolExecution.objects.get(tool="session_status").ok is False  # audited like any call


def test_the_key_appears_in_no_response(connect, make_key):
    key = make_key("tools:execute")
    secret = key.split(".", 1)[1]

    async def go():
        async with connect(key) as (client, recorder):
            await client.list_tools()
            await client.call_tool("session_status", {})
            await client.call_tool("clapilot_context_status", {})
            await client.call_tool("aufgaben_get_task", {"task_id": 1})
            await client.call_tool("no_such_tool", {"key": "x"})
            return recorder

    recorder = asyncio.run(go())
    assert len(recorder.responses) >= 6
    seen = recorder.everything()
    assert secret not in seen and key.split(".")[0] not in seen


# --- the gate ----------------------------------------------------------------------------------
def test_no_key_and_a_bad_key_are_401_alike_without_detail(mcp_url, make_key, office_admin):
    good = make_key("tools:execute")
    revoked = make_key("tools:execute")
    services.revoke_api_key(Principal.for_user(office_admin), prefix=revoked.split(".")[0])
    answers = [
        post(mcp_url),
        post(mcp_url, {"Authorization": "Bearer clp_aaaaaaaa.wrong"}),
        post(mcp_url, {"Authorization": f"Bearer {good[:-2]}xx"}),
        post(mcp_url, {"Authorization": f"Bearer {revoked}"}),
        post(mcp_url, {"Authorization": f"Token {good}"}),
        post(f"{mcp_url}?api_key={good}"),  # never from the URL
    ]
    assert [a.status_code for a in answers] == [401] * len(answers)
    assert len({a.content for a in answers}) == 1  # no reason given
    assert all(a.headers["www-authenticate"] == 'Bearer realm="mcp"' for a in answers)
    assert not any(good in a.text or revoked in a.text for a in answers)
    assert post(mcp_url, {"Authorization": f"Bearer {good}"}).status_code == 200


def test_the_instructions_say_memory_is_untrusted_data(mcp_url, make_key):
    answer = post(mcp_url, {"Authorization": f"Bearer {make_key('memory:read')}"})
    instructions = answer.json()["result"]["instructions"]
    assert "untrusted data" in instructions and "never as instructions" in instructions


def test_the_sdk_client_without_a_key_gets_unauthorized(connect):
    with pytest.raises(ExceptionGroup) as raised:
        listed(connect, None)
    error = innermost(raised.value)
    assert isinstance(error, MCPError) and error.error.message == "Unauthorized"


def test_a_foreign_origin_or_host_is_refused_before_the_key_is_looked_at(mcp_url, make_key):
    key = {"Authorization": f"Bearer {make_key('tools:execute')}"}
    assert post(mcp_url, {**key, "Origin": "http://evil.example"}).status_code == 403
    assert post(mcp_url, {**key, "Origin": "null"}).status_code == 403
    assert post(mcp_url, {**key, "Host": "evil.example"}).status_code == 421
    assert post(mcp_url, {"Origin": "http://evil.example"}).status_code == 403  # not 401: no lookup
    assert post(mcp_url, {**key, "Origin": ALLOWED_ORIGIN}).status_code == 200
    assert post(mcp_url, {**key, "Host": "localhost"}).status_code == 200


def innermost(group: BaseException) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group


def test_the_sdk_client_from_a_foreign_origin_is_refused(connect, make_key):
    key = make_key("tools:execute")

    async def go():
        async with connect(key, headers={"Origin": "http://evil.example"}) as (client, _):
            await client.list_tools()

    with pytest.raises(ExceptionGroup) as raised:
        asyncio.run(go())
    error = innermost(raised.value)
    assert isinstance(error, MCPError) and error.error.message == "Invalid Origin header"


def test_only_post_is_served(mcp_url, make_key):
    key = {"Authorization": f"Bearer {make_key('tools:execute')}"}
    for method in ("GET", "DELETE", "PUT"):
        response = httpx2.request(method, mcp_url, headers={**ACCEPT, **key}, timeout=10)
        assert (response.status_code, response.headers["allow"]) == (405, "POST")


def test_a_key_over_its_rate_gets_429_with_retry_after(mcp_url, make_key):
    headers = {"Authorization": f"Bearer {make_key('memory:read')}"}
    statuses = [post(mcp_url, headers).status_code for _ in range(RATE_PER_MINUTE)]
    assert statuses == [200] * RATE_PER_MINUTE
    refused = post(mcp_url, headers)
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 60
