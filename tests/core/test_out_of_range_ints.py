"""Integers beyond PostgreSQL's bigint (and beyond its integer, for positions) in ids, offsets,
page numbers and positions answer 400 / ok:false / not found, never a 500 `bigint out of range`
(issue 15, defect 5: 19 reproductions across REST, pages and tools).

The cases are enumerated from the URL resolver (every typed REST operation's query and body
model, every page route) and from the tool registry, so a new operation is covered without a
line here. All run against the demo office (rows to page through), loaded once per module."""

from __future__ import annotations

import json
import re

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver

from apps.core.contracts import BIGINT_MAX, INTEGER_MAX

BEYOND_BIGINT = BIGINT_MAX + 1  # 9223372036854775808
BEYOND_INTEGER = INTEGER_MAX + 1  # a position or count stored in an IntegerField
HUGE = "9" * 4400  # more digits than Python converts from text
# Routes that stream (SSE) or sign out: no single answer to check.
SKIP = re.compile(r"stream|logout|^admin/")


def _walk(patterns, prefix=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _walk(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern), p


ROUTES = [(route, p) for route, p in _walk(get_resolver().url_patterns) if not SKIP.search(route)]


def fill(route: str, number: int | str) -> str:
    out = re.sub(r"<int:\w+>", str(number), route)
    return "/" + re.sub(r"<(?:slug|str|path):\w+>", "x", out)


def _int_kind(prop: dict) -> str | None:
    if prop.get("type") == "integer":
        return "int"
    if prop.get("type") == "array" and prop.get("items", {}).get("type") == "integer":
        return "list"
    return next((k for alt in prop.get("anyOf", []) if (k := _int_kind(alt))), None)


def _minimal(schema: dict) -> dict:
    """Values for the required fields, so the integer under test is what the check meets."""
    out = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        kinds = [prop.get("type"), *(a.get("type") for a in prop.get("anyOf", []))]
        kinds = [k for k in kinds if k and k != "null"]
        kind = kinds[0] if kinds else None
        if "enum" in prop:
            out[name] = prop["enum"][0]
        else:
            out[name] = {"string": "x", "integer": 1, "boolean": False, "array": [], "object": {}}.get(kind)
    return {k: v for k, v in out.items() if v is not None}


def int_cases(schema: dict):
    """(field, payload, value) for each integer field, with a value beyond bigint and one beyond
    integer (a field stored in an IntegerField must bound it; one stored in bigint ignores it)."""
    base = _minimal(schema)
    for name, prop in schema.get("properties", {}).items():
        kind = _int_kind(prop)
        for value in (BEYOND_BIGINT, BEYOND_INTEGER, -BEYOND_BIGINT - 1):
            if kind == "int":
                yield name, {**base, name: value}, value
            elif kind == "list":
                yield name, {**base, name: [value]}, value


def rest_cases():
    for route, p in ROUTES:
        view = getattr(p.callback, "cls", None)
        for method in ("get", "post", "put", "patch"):
            handler = getattr(view, method, None)
            for where in ("body_model", "query_model"):
                model = getattr(handler, where, None)
                if model is None:
                    continue
                for field, payload, value in int_cases(model.model_json_schema()):
                    yield pytest.param(
                        route, method, where, payload, value, id=f"{method} /{route} {field}={value}"
                    )


def tool_cases():
    from apps.tools import registry

    for t in sorted(registry.all_tools(), key=lambda t: t.name):
        for field, payload, value in int_cases(t.args_model.model_json_schema()):
            yield pytest.param(t.name, payload, value, id=f"{t.name} {field}={value}")


PAGE_PARAMS = ("page", "p", "offset", "limit", "after", "folder", "board", "client", "a", "b")


def page_cases():
    for route, _p in ROUTES:
        if "<" not in route and not route.startswith("api/"):
            yield pytest.param(route, id=f"/{route}")


def id_route_cases():
    for route, _p in ROUTES:
        if "<int:" in route:
            yield pytest.param(route, id=f"/{route}")


class _Rollback(Exception):
    pass


@pytest.fixture(scope="module")
def office(django_db_setup, django_db_blocker):
    """The demo office, loaded once for the module and rolled back at its end."""
    from apps.ops.demo import load_once
    from tests.factories import UserFactory

    with django_db_blocker.unblock():
        try:
            with transaction.atomic():
                admin = UserFactory(role="admin", is_superuser=True, email="probe@kanzlei.example")
                load_once(admin, None)
                yield admin
                raise _Rollback
        except _Rollback:
            pass


@pytest.fixture
def signed_in(office, db, client):
    client.raise_request_exception = False  # a 500 is an answer to assert on, not an error
    client.force_login(office)
    return client


@pytest.mark.parametrize(("route", "method", "where", "payload", "value"), list(rest_cases()))
def test_rest_operations_refuse_integers_beyond_the_column(signed_in, route, method, where, payload, value):
    url = fill(route, 1)
    if where == "body_model":
        response = getattr(signed_in, method)(url, json.dumps(payload), content_type="application/json")
    else:
        response = signed_in.get(url, {k: v[0] if isinstance(v, list) else v for k, v in payload.items()})
    if value == BEYOND_INTEGER:  # fine for a bigint column; an integer column's field bounds it
        assert response.status_code < 500, response.content[:300]
        return
    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] == "invalid_request"


@pytest.mark.parametrize(("name", "payload", "value"), list(tool_cases()))
def test_tools_refuse_integers_beyond_the_column(office, db, name, payload, value):
    from apps.accounts.principal import Principal
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    result = dispatch(name, payload, ToolContext(principal=Principal.for_user(office)))
    assert result.code != "CLAPILOT_TOOL_EXECUTION_FAILED", result.message
    if value != BEYOND_INTEGER:
        assert (result.ok, result.code) == (False, "invalid_arguments"), result.message


@pytest.mark.parametrize("route", list(page_cases()))
def test_pages_take_any_number_as_a_page_parameter(signed_in, route):
    for param in PAGE_PARAMS:
        for value in (BEYOND_BIGINT, HUGE):
            response = signed_in.get(fill(route, 1), {param: str(value)})
            # /healthz may report a missing worker heartbeat (503); nothing else may fail
            assert response.status_code < 500 or route == "healthz", (param, response.status_code)


@pytest.mark.parametrize("route", list(id_route_cases()))
def test_ids_beyond_bigint_in_the_path_are_not_found(signed_in, route):
    for method in ("get", "post"):
        response = getattr(signed_in, method)(fill(route, BEYOND_BIGINT))
        assert response.status_code in (302, 400, 403, 404, 405), (method, response.status_code)


def test_the_cases_are_enumerated_from_the_resolver_and_the_registry():
    """A lost `body_model`/`query_model` on the endpoint handlers must fail, not skip silently."""
    assert len({p.values[0] for p in rest_cases()}) >= 20
    assert len({p.values[0] for p in tool_cases()}) >= 20
    assert len(list(page_cases())) >= 10 and len(list(id_route_cases())) >= 30
