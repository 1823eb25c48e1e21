"""A tool's `api_scopes`: a key holding one of them lists and calls that tool, and nothing else."""

import pytest

import tests.mcp_server.scoped_tools  # noqa: F401  (registers testkit_scoped_read)
from apps.accounts.principal import Principal
from apps.tools import catalog
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


def key_ctx(user, *scopes):
    return ToolContext(principal=Principal.for_user(user), surface="api", scopes=frozenset(scopes))


def test_a_narrow_scope_reaches_only_the_tools_that_name_it(user):
    ctx = key_ctx(user, "testkit:read")
    assert [t.name for t in catalog.visible_tools(ctx)] == ["testkit_scoped_read"]
    assert dispatch("testkit_scoped_read", {"text": "a"}, ctx).output == {"text": "a"}
    assert dispatch("session_status", {}, ctx).code == "forbidden"
    assert (
        dispatch("tool_execute", {"tool": "testkit_scoped_read", "arguments": "{}"}, ctx).code == "forbidden"
    )


def test_another_narrow_scope_does_not_reach_it(user):
    ctx = key_ctx(user, "testkit:write")
    assert "testkit_scoped_read" not in {t.name for t in catalog.visible_tools(ctx)}
    assert dispatch("testkit_scoped_read", {"text": "a"}, ctx).code == "forbidden"


def test_tools_execute_and_sessions_reach_every_tool(user):
    everything = {
        t.name for t in catalog.visible_tools(ToolContext(principal=Principal.for_user(user), surface="api"))
    }
    assert {"testkit_scoped_read", "session_status"} <= everything
    assert {t.name for t in catalog.visible_tools(key_ctx(user, "tools:execute"))} == everything
