"""The OpenAPI document describes every REST operation with typed models (DESIGN §3a)."""

import pytest
from drf_spectacular.generators import SchemaGenerator


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def _resolve(schema, node):
    while isinstance(node, dict) and "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_no_response_is_an_untyped_object(schema):
    untyped = []
    for name, operation in _operations(schema):
        for status, response in operation["responses"].items():
            for media, content in response.get("content", {}).items():
                body = _resolve(schema, content.get("schema", {}))
                if body.get("type") == "object" and not body.get("properties"):
                    untyped.append(f"{name} {status} {media}")
    assert untyped == []


def test_every_operation_documents_a_success_response(schema):
    missing = [
        name
        for name, operation in _operations(schema)
        if not any(s.startswith(("2", "3")) for s in operation["responses"])
    ]
    assert missing == []


def test_one_pagination_shape(schema):
    odd = []
    for name, component in schema["components"]["schemas"].items():
        properties = component.get("properties", {})
        paginated = "total" in properties and "offset" in properties
        if paginated and not {"limit", "offset", "total", "has_more"} <= set(properties):
            odd.append(name)
    assert odd == []
