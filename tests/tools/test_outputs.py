"""Declared tool outputs (`@tool(output=Model)`): every tool declares one, the dispatcher checks
each successful output against it (loud in tests, logged in production, the output passed on
unchanged), and its schema is published in the catalog, `/api/v1/tools` and MCP `tools/list`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from pydantic import Field

from apps.accounts.principal import Principal
from apps.core.contracts import Output
from apps.core.models import InstanceSetting
from apps.mcp_server.access import Caller
from apps.mcp_server.server import _listed, output_schema
from apps.tools import registry
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.dispatcher import OutputMismatch, dispatch
from apps.tools.registry import tool

pytestmark = pytest.mark.django_db

# Tools of the project that do not declare an output yet. It may only shrink: a tool listed here
# that declares one fails the test, as does a tool missing from it that declares none.
NOT_YET_DECLARED: frozenset[str] = frozenset()


def project_tools() -> list[registry.Tool]:
    """The registry without the test-only tools."""
    return [t for t in registry.all_tools() if t.handler.__module__.startswith("apps.")]


def test_every_tool_declares_its_output():
    undeclared = {t.name for t in project_tools() if t.output_model is None}
    assert undeclared - NOT_YET_DECLARED == set(), "declare output= on these tools"
    assert NOT_YET_DECLARED - undeclared == set(), "these declare an output now: drop them from the list"


def test_every_output_schema_is_a_valid_json_schema_of_an_object_or_a_forwarded_value():
    for t in project_tools():
        if t.output_schema is None:
            continue
        jsonschema.Draft202012Validator.check_schema(t.output_schema)
        assert t.output_schema.get("type") == "object" or t.name == "tool_execute", t.name
        mcp = output_schema(t)
        jsonschema.Draft202012Validator.check_schema(mcp)
        assert mcp["type"] == "object" and {"ok", "output", "code"} <= set(mcp["properties"])


# --- the dispatcher's check ------------------------------------------------------------------
class ShapeArgs(Args):
    shape: str = Field(max_length=20)


class ShapeOut(Output):
    key: str
    count: int


@pytest.fixture
def shaped_tool():
    """A tool answering a chosen shape, registered only for the test (the fuzz walks the registry)."""

    @tool(name="testkit_shaped", family="testkit", read_only=False, output=ShapeOut, description="Shapes.")
    def shaped(ctx: ToolContext, args: ShapeArgs) -> dict:
        InstanceSetting.objects.create(key=f"shaped-{args.shape}", value={})
        return {
            "good": {"key": "a", "count": 1},
            "extra": {"key": "a", "count": 1, "later": True},
            "missing": {"key": "a"},
        }[args.shape]

    yield registry.get("testkit_shaped")
    registry._REGISTRY.pop("testkit_shaped", None)


def test_a_declared_output_is_published_with_the_arguments(shaped_tool):
    assert shaped_tool.output_schema["required"] == ["key", "count"]
    assert shaped_tool.output_schema["additionalProperties"] is False


def test_a_mismatch_fails_loudly_in_tests_and_writes_nothing(ctx, shaped_tool):
    assert dispatch("testkit_shaped", {"shape": "good"}, ctx).output == {"key": "a", "count": 1}
    with pytest.raises(OutputMismatch, match="count: Field required"):
        dispatch("testkit_shaped", {"shape": "missing"}, ctx)
    assert not InstanceSetting.objects.filter(key="shaped-missing").exists()


def test_in_production_a_mismatch_is_logged_and_the_output_passed_on_unchanged(
    ctx, shaped_tool, settings, caplog
):
    settings.CLAPILOT_TOOL_OUTPUT_STRICT = False
    with caplog.at_level(logging.WARNING, logger="apps.tools.dispatcher"):
        result = dispatch("testkit_shaped", {"shape": "extra"}, ctx)
    assert result.ok and result.output == {"key": "a", "count": 1, "later": True}
    assert "testkit_shaped answered outside its output model ShapeOut" in caplog.text
    assert InstanceSetting.objects.filter(key="shaped-extra").exists()


def test_an_unserializable_output_still_fails_with_its_code(ctx):
    result = dispatch("testkit_write", {"key": "k", "fail": "unserializable"}, ctx)
    assert result.code == "CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED"


# --- published --------------------------------------------------------------------------------
def test_mcp_tools_list_carries_the_output_schema(admin_user):
    caller = Caller(key_id=1, key_prefix="clp_x", user=admin_user, scopes=frozenset({"tools:execute"}))
    listed = {t.name: t for t in _listed(caller, None)}
    schema = listed["mandanten_get"].output_schema
    assert schema is not None
    output = schema["properties"]["output"]["anyOf"][0]
    assert output["required"] == ["client"]
    dumped = listed["mandanten_get"].model_dump(by_alias=True, exclude_none=True)
    assert "outputSchema" in dumped


def test_the_rest_catalog_and_the_catalog_tool_show_output_schemas(client, admin_user, ctx):
    from apps.apikeys import services as keys

    _, plaintext = keys.create_api_key(Principal.for_user(admin_user), name="o", scopes=["tools:execute"])
    body = client.get("/api/v1/tools", headers={"Authorization": f"Bearer {plaintext}"}).json()
    by_name = {t["name"]: t for t in body["tools"]}
    assert by_name["mandanten_get"]["output_schema"]["required"] == ["client"]
    expanded = dispatch("tool_catalog_expand", {"family": "mandanten"}, ctx)
    assert all(t["output_schema"] for t in expanded.output["tools"])


# --- one representative call per family, through dispatch, against its model ----------------
Call = tuple[str, dict | Callable[[dict], dict]]

FAMILIES: dict[str, list[Call]] = {
    "core": [
        ("clapilot_context_status", {}),
        ("session_status", {}),
        ("tool_catalog_search", {"query": "kalender"}),
        ("tool_execute", {"tool": "session_status", "arguments": "{}"}),
    ],
    "aufgaben": [
        ("aufgaben_list_boards", {}),
        ("aufgaben_list_statuses", {}),
        ("aufgaben_create_board", {"name": "Team"}),
        (
            "aufgaben_create_task",
            lambda out: {"title": "Akte prüfen", "board_id": out["aufgaben_create_board"]["board"]["id"]},
        ),
        (
            "aufgaben_add_comment",
            lambda out: {"task_id": out["aufgaben_create_task"]["task"]["id"], "body": "ok"},
        ),
        ("aufgaben_get_task", lambda out: {"task_id": out["aufgaben_create_task"]["task"]["id"]}),
        ("aufgaben_list_tasks", {}),
        ("aufgaben_delete_task", lambda out: {"task_id": out["aufgaben_create_task"]["task"]["id"]}),
    ],
    "agent": [("agent_todo_update", {"items": [{"title": "Lesen", "status": "done"}]})],
    "calendar": [
        ("calendar_create_event", {"title": "Termin", "start": "2026-12-01T10:00:00+01:00"}),
        ("calendar_list_events", {"start": "2026-11-30T00:00:00+01:00", "end": "2026-12-02T00:00:00+01:00"}),
        ("calendar_delete_event", lambda out: {"event_id": out["calendar_create_event"]["event"]["id"]}),
        ("calendar_compute_deadline", {"trigger_date": "2026-03-02", "rule": "einspruch_ao"}),
    ],
    "mandanten": [
        ("mandanten_create", {"name": "Muster GmbH"}),
        ("mandanten_search", {"query": "Muster"}),
        (
            "cases_create",
            lambda out: {
                "client_id": out["mandanten_create"]["client"]["id"],
                "reference": "1/26",
                "subject": "Einspruch",
            },
        ),
        ("cases_list", {}),
    ],
    "documents": [
        ("documents_create", {"title": "Vermerk", "content": "# Vermerk\n\nText."}),
        ("documents_get", lambda out: {"document_id": out["documents_create"]["document"]["id"]}),
        ("documents_list_folders", {}),
    ],
    "notizen": [
        ("notizen_create_note", {"name": "Notiz", "text": "Inhalt"}),
        ("notizen_get_note", lambda out: {"note_id": out["notizen_create_note"]["note"]["id"]}),
        ("notizen_list_notes", {}),
    ],
    "wiki": [
        ("wiki_propose_change", {"slug": "handbuch", "title": "Handbuch", "body": "Text", "comment": "neu"}),
        ("wiki_search", {"query": "Handbuch"}),
    ],
    "widgets": [
        ("widgets_create", {"name": "Zahlen", "latest_data": {"offen": 3}}),
        ("mini_apps_list", {}),
    ],
    "context": [("context_search", {"query": "Vermerk"}), ("learning_search", {})],
    "memory": [
        ("memory_store", {"text": "Frau Muster bevorzugt Termine am Vormittag.", "scope": "personal"}),
        ("memory_search", {"query": "Termine"}),
        ("memory_grep", {"pattern": "Vormittag"}),
        ("memory_describe", {}),
    ],
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_representative_call_per_family_validates_against_its_model(family, statuses, admin_user):
    # As if a person approved each call: staged-by-default tools (a delete) run here too.
    ctx = ToolContext(principal=Principal.for_user(admin_user), surface="native", approved=True)
    outputs: dict[str, Any] = {}
    for name, arguments in FAMILIES[family]:
        args = arguments(outputs) if callable(arguments) else arguments
        result = dispatch(name, args, ctx)
        assert result.ok, (name, result.code, result.message, result.output)
        model = registry.get(name).output_model
        model.model_validate(result.output)  # also checked (strictly) by the dispatcher
        json.dumps(result.output)
        outputs[name] = result.output
