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


# --- the error responses tell the truth (issue 15, defect 11) --------------------------------
ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
# Operations that answer their own refusals in another documented shape: the tool-result
# envelope, OpenAI's error object. What is refused before the view (input checks, DRF's 401, 403,
# 429) is ErrorOut there all the same.
OWN_ERROR_SHAPE = {
    "POST /api/v1/tools/execute",
    "GET /api/v1/inference/models",
    "POST /api/v1/inference/chat/completions",
}


def _documented(schema, path, method, status):
    response = schema["paths"][path][method]["responses"].get(str(status))
    assert response is not None, f"{method.upper()} {path} does not document {status}"
    return response["content"]["application/json"]["schema"]


def _assert_conforms(schema, body_schema, body):
    from jsonschema import Draft202012Validator

    Draft202012Validator({**body_schema, "components": schema["components"]}).validate(body)


def test_every_refusal_is_documented_with_the_error_body(schema):
    """Each secured operation documents 401 and 403, each one with input 400, each one addressing
    a record 404; every 4xx has a body, and it is ErrorOut (or ErrorOut beside the view's own)."""
    wrong = []
    for name, operation in _operations(schema):
        responses = operation["responses"]
        secured = any(requirement for requirement in operation.get("security", [{}]))
        path_ids = any(p["in"] == "path" for p in operation.get("parameters", []))
        expected = {"401", "403"} if secured else set()
        if operation.get("parameters") or operation.get("requestBody"):
            expected.add("400")
        if path_ids:
            expected.add("404")
        if missing := expected - set(responses):
            wrong.append(f"{name}: {sorted(missing)} undocumented")
        for status, response in responses.items():
            if not status.startswith("4"):
                continue
            body = response.get("content", {}).get("application/json", {}).get("schema")
            is_error_body = body == ERROR_REF or ERROR_REF in (body or {}).get("anyOf", [])
            own_shape = name in OWN_ERROR_SHAPE and status not in {"400", "401", "403", "413", "429"}
            if not is_error_body and not own_shape:
                wrong.append(f"{name} {status}: {body}")
    assert wrong == []


def test_notifications_are_documented_as_the_object_they_are(schema):
    body = _resolve(schema, _documented(schema, "/api/v1/notifications", "get", 200))
    assert body["type"] == "object"
    assert body["properties"]["notifications"]["type"] == "array"
    assert set(body["required"]) == {"notifications", "next_after"}


@pytest.fixture
def staff_key(db):
    from apps.accounts.principal import Principal
    from apps.apikeys import services
    from tests.factories import UserFactory

    admin = UserFactory(role="admin", is_superuser=True)
    return services.create_api_key(Principal.for_user(admin), name="t", scopes=["notifications:read"])[1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path", "documented", "headers", "status", "code"),
    [
        ("get", "/api/v1/tasks/", "/api/v1/tasks/", {}, 401, "not_authenticated"),
        (
            "get",
            "/api/v1/tasks/",
            "/api/v1/tasks/",
            {"HTTP_AUTHORIZATION": "Bearer clp_zzzzzzzz.nope"},
            401,
            "api_key_invalid",
        ),
        ("get", "/api/v1/tasks/", "/api/v1/tasks/", "key", 403, "api_key_endpoint_not_allowed"),
        ("get", "/api/v1/tools", "/api/v1/tools", "key", 403, "api_key_scope_missing"),
        ("post", "/api/v1/tools/execute", "/api/v1/tools/execute", "key", 403, "api_key_scope_missing"),
        ("get", "/api/v1/tasks/nope", "/api/v1/tasks/{task_id}", "key", 404, "not_found"),
    ],
)
def test_refusals_answer_the_documented_error_body(
    client, schema, staff_key, method, path, documented, headers, status, code
):
    if headers == "key":
        headers = {"HTTP_AUTHORIZATION": f"Bearer {staff_key}"}
    response = getattr(client, method)(path, **headers)
    assert response.status_code == status
    body = response.json()
    assert body["code"] == code
    assert body["message"] and "details" in body
    _assert_conforms(schema, _documented(schema, documented, method, status), body)


@pytest.mark.django_db
def test_unparsable_body_answers_the_error_body(client, schema):
    response = client.post("/api/v1/auth/token", "[1", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"
    _assert_conforms(schema, _documented(schema, "/api/v1/auth/token", "post", 400), response.json())


@pytest.mark.django_db
def test_throttled_key_answers_the_error_body(client, schema, settings, staff_key):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "api_key": "1/min"},
    }
    auth = {"HTTP_AUTHORIZATION": f"Bearer {staff_key}"}
    assert client.get("/api/v1/notifications", **auth).status_code == 200
    response = client.get("/api/v1/notifications", **auth)
    assert response.status_code == 429
    body = response.json()
    assert body["code"] == "throttled" and body["details"]["retry_after"] > 0
    _assert_conforms(schema, _documented(schema, "/api/v1/notifications", "get", 429), body)
