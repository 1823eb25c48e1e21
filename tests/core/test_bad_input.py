"""Bad input is a 400 / ok:false with a stable code, never a 500 (issue 15, defect 9): JSON nested
1,000+ levels, numbers of 4,301+ digits (or not finite), NUL characters in tool arguments, widget
JSON, form posts and query strings, an unknown tool name with a NUL (still audited), and an
X-User-Timezone header over 255 characters."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.core import jsontext
from apps.tools import registry
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.models import ToolExecution
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

DEEP = "[" * 1200 + "]" * 1200
LONG_NUMBER = "1" * 4400
EXECUTE = "/api/v1/tools/execute"


@pytest.fixture
def staff():
    return UserFactory(role="admin", is_superuser=True, email="chef@kanzlei.example", language="de")


@pytest.fixture
def signed_in(client, staff):
    client.raise_request_exception = False
    client.force_login(staff)
    return client


@pytest.fixture
def key_client(staff):
    _, plaintext = keys.create_api_key(Principal.for_user(staff), name="probe", scopes=["tools:execute"])
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    api.raise_request_exception = False
    return api


def _walk(patterns, prefix=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _walk(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern), p


def body_operations():
    """Every typed REST operation with a JSON body, from the URL resolver."""
    for route, p in _walk(get_resolver().url_patterns):
        view = getattr(p.callback, "cls", None)
        for method in ("post", "put", "patch"):
            model = getattr(getattr(view, method, None), "body_model", None)
            if model is not None:
                path = "/" + re.sub(r"<int:\w+>", "1", route)
                yield pytest.param(path, method, model, id=f"{method} {path}")


def _first_text_field(model) -> str | None:
    for name, prop in model.model_json_schema().get("properties", {}).items():
        kinds = [prop.get("type"), *(a.get("type") for a in prop.get("anyOf", []))]
        if "string" in kinds and "enum" not in prop and "format" not in prop:
            return name
    return None


# --- JSON: nesting, long numbers, non-finite numbers, NUL --------------------------------------
@pytest.mark.parametrize(("path", "method", "model"), list(body_operations()))
def test_rest_bodies_refuse_deep_json_long_numbers_and_nul(signed_in, path, method, model):
    send = getattr(signed_in, method)
    cases = [
        ('{"x": ' + DEEP + "}", "json_too_deep"),
        ('{"x": ' + LONG_NUMBER + "}", "json_number_invalid"),
        ('{"x": 1e999}', "json_number_invalid"),
        ('{"x": NaN}', "json_number_invalid"),
    ]
    field = _first_text_field(model)
    if field is not None:
        cases.append((json.dumps({field: "a\u0000b"}), "nul_character"))
    for body, code in cases:
        response = send(path, body, content_type="application/json")
        assert response.status_code == 400, (body[:40], response.status_code, response.content[:200])
        data = response.json()
        assert data["code"] == code and data["message"], data
    if field is not None:
        assert data["details"]["field_errors"] == {field: jsontext.nul_message()}


def test_the_nul_message_is_german(signed_in):
    response = signed_in.post("/api/v1/tasks/", '{"title": "a\\u0000"}', content_type="application/json")
    assert response.json()["message"] == "title: Der Text darf keine NUL-Zeichen (\\0) enthalten."


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (f'{{"tool": "aufgaben_list_tasks", "arguments": {DEEP}}}', "json_too_deep"),
        (f'{{"tool": "aufgaben_list_tasks", "arguments": {{"query": {DEEP}}}}}', "json_too_deep"),
        (
            f'{{"tool": "aufgaben_list_tasks", "arguments": {{"limit": {LONG_NUMBER}}}}}',
            "json_number_invalid",
        ),
        ('{"tool": "aufgaben_list_tasks", "arguments": {"limit": 1e999}}', "json_number_invalid"),
    ],
)
def test_tool_execute_refuses_deep_json_and_long_numbers(key_client, body, code):
    response = key_client.post(EXECUTE, data=body, content_type="application/json")
    assert response.status_code == 400
    data = response.json()
    assert (data["ok"], data["code"]) == (False, code)


def test_tool_arguments_with_nul_are_invalid_arguments_and_audited(key_client):
    body = {"tool": "aufgaben_create_task", "arguments": {"title": "Steuer\u0000erklärung"}}
    response = key_client.post(EXECUTE, data=json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_arguments"
    assert ToolExecution.objects.filter(tool="aufgaben_create_task", code="invalid_arguments").count() == 1


def test_an_unknown_tool_name_with_nul_is_answered_and_audited(key_client):
    response = key_client.post(
        EXECUTE, data=json.dumps({"tool": "nix\u0000da", "arguments": {}}), content_type="application/json"
    )
    assert response.status_code == 404
    data = response.json()
    assert data["code"] == "unknown_tool" and "\x00" not in data["message"]
    row = ToolExecution.objects.get(code="unknown_tool")
    assert row.tool == "nix\ufffdda"


def test_an_idempotency_key_with_nul_is_invalid_request(key_client):
    body = {"tool": "aufgaben_list_tasks", "arguments": {}, "idempotency_key": "a\u0000"}
    response = key_client.post(EXECUTE, data=json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_request"


def text_field_tools():
    for t in sorted(registry.all_tools(), key=lambda t: t.name):
        schema = t.args_model.model_json_schema()
        names = [
            n
            for n, prop in schema.get("properties", {}).items()
            if "string" in [prop.get("type"), *(a.get("type") for a in prop.get("anyOf", []))]
        ]
        if names:
            yield pytest.param(t.name, names, id=t.name)


@pytest.mark.parametrize(("name", "fields"), list(text_field_tools()))
def test_every_tool_refuses_nul_in_every_text_argument(staff, name, fields):
    ctx = ToolContext(principal=Principal.for_user(staff))
    for field in fields:
        result = dispatch(name, {field: "a\u0000b"}, ctx)
        assert (result.ok, result.code) == (False, "invalid_arguments"), (field, result.code, result.message)


def test_model_written_arguments_are_parsed_with_the_same_limits(staff):
    ctx = ToolContext(principal=Principal.for_user(staff))
    for raw in (DEEP, f'{{"limit": {LONG_NUMBER}}}', '{"query": "a\\u0000"}'):
        result = dispatch("aufgaben_list_tasks", raw, ctx)
        assert (result.ok, result.code) == (False, "invalid_arguments")
    inner = dispatch("tool_execute", {"tool": "aufgaben_list_tasks", "arguments": DEEP}, ctx)
    assert inner.ok is False and inner.code != "CLAPILOT_TOOL_EXECUTION_FAILED"


def test_widget_json_with_nul_is_refused(signed_in):
    body = {"title": "Kennzahlen", "widget_definition": {"type": "stats"}, "latest_data": {"Fälle\u0000": 3}}
    response = signed_in.post("/api/v1/widgets/", json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "nul_character"
    tool = dispatch(
        "widgets_create",
        {"title": "Kennzahlen", "widget_definition": {"type": "stats"}, "latest_data": '{"a\\u0000": 1}'},
        ToolContext(principal=Principal.for_user(UserFactory())),
    )
    assert (tool.ok, tool.code) == (False, "invalid_arguments")


def test_the_notes_editor_save_refuses_deep_json(signed_in):
    response = signed_in.post(
        "/notizen/seiten/1/speichern/", f'{{"html": {DEEP}}}', content_type="application/json"
    )
    assert response.status_code == 400 and response.json()["code"] == "json_too_deep"


# --- NUL in query strings and form posts ---------------------------------------------------
def test_nul_in_a_page_search_is_a_400_page(signed_in):
    response = signed_in.get("/mandanten/", {"q": "Mei\x00er"})
    assert response.status_code == 400
    assert "Der Text darf keine NUL-Zeichen" in response.content.decode()


def test_nul_in_a_rest_query_is_a_400_with_a_code(signed_in):
    for path in ("/api/v1/clients/", "/api/v1/cases/", "/api/v1/widgets/"):
        response = signed_in.get(path, {"q": "a\x00"})
        assert response.status_code == 400
        assert response.json()["code"] == "nul_character"


def test_nul_in_the_notes_folder_form_is_a_400_page(signed_in):
    response = signed_in.post("/notizen/ordner/neu/", {"name": "Ablage\x00", "visibility": "shared"})
    assert response.status_code == 400
    assert "NUL" in response.content.decode()
    htmx = signed_in.post("/notizen/ordner/neu/", {"name": "Ablage\x00"}, HTTP_HX_REQUEST="true")
    assert htmx.status_code == 400 and htmx["Content-Type"].startswith("text/plain")


def test_form_posts_without_nul_still_work(signed_in):
    from apps.notes.models import NoteFolder

    response = signed_in.post("/notizen/ordner/neu/", {"name": "Ablage", "visibility": "shared"})
    assert response.status_code in (200, 302)
    assert NoteFolder.objects.filter(name="Ablage").exists()


# --- X-User-Timezone ---------------------------------------------------------------------------
def test_an_overlong_time_zone_header_is_a_400(signed_in, key_client):
    api = key_client.post(
        EXECUTE,
        data=json.dumps({"tool": "clapilot_context_status", "arguments": {}}),
        content_type="application/json",
        HTTP_X_USER_TIMEZONE="Europe/" + "x" * 300,
    )
    assert api.status_code == 400 and api.json()["code"] == "invalid_time_zone"
    page = signed_in.get("/", HTTP_X_USER_TIMEZONE="a" * 300)
    assert page.status_code == 400
    assert signed_in.get("/", HTTP_X_USER_TIMEZONE="Mars/Olympus").status_code == 200  # unknown: ignored


def test_a_valid_time_zone_header_still_applies(key_client):
    response = key_client.post(
        EXECUTE,
        data=json.dumps({"tool": "clapilot_context_status", "arguments": {}}),
        content_type="application/json",
        HTTP_X_USER_TIMEZONE="Asia/Tokyo",
    )
    assert response.status_code == 200
    assert "Asia/Tokyo" in json.dumps(response.json()["output"])


def test_the_body_operations_are_enumerated_from_the_resolver():
    assert len(list(body_operations())) >= 20
    assert len(list(text_field_tools())) >= 20
