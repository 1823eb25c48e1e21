"""REST plumbing shared by every app: typed endpoints and one error table.

An endpoint is an `ApiView` method decorated with `endpoint(...)`, naming the operation's input
model (`body=` for JSON bodies, `query=` for query strings) and its output model. The decorator
validates the input, hands the model instance to the method, validates what the method returns
against the output model and documents both in OpenAPI (drf-spectacular's pydantic support):

    class TaskListView(ApiView):
        @endpoint(query=TaskFilter, output=TaskPage, operation_id="tasks_list")
        def get(self, request, query: TaskFilter):
            found = services.list_tasks(request.principal, query)
            return listed("tasks", TaskOut.of, found, query)

The operation's summary is the first paragraph of the method's docstring (there: "List tasks."),
its description the rest (or `summary=` / `description=`); its tag is the app's (its
`DomainApp.api_tag`, else the app label) unless `tags=` says otherwise.

`listed` answers a list operation in the one pagination shape. A PATCH hands its validated body
to the domain's update service as is (`update(principal, id, body)`); the model says which fields
changed (`body.changes()`, see docs/declared-once.md).

`request.principal` is resolved once by the accounts middleware and the API authentication
classes. A `DomainError` becomes `{"code", "message", "details"}` with its HTTP status here.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from django.apps import apps
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from pydantic import BaseModel, ValidationError
from rest_framework.exceptions import Throttled
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from apps.core.contracts import page
from apps.core.errors import DECLARED, DomainError
from apps.core.messages import validation_message

INVALID_REQUEST = "invalid_request"


def exception_handler(exc, context):
    """Every refusal in the one error shape (`contracts.ErrorOut`): `DomainError` → `{"code",
    "message", "details"}` with the error's HTTP status; DRF's own refusals (authentication 401,
    permission 403, throttle 429, unparsable body 400, method 405 …) the same, with DRF's `detail`
    kept beside `message` for older clients."""
    if isinstance(exc, RequestInvalid):
        return exc.response()
    if isinstance(exc, DomainError):
        return Response(
            {"code": exc.code, "message": exc.message, "details": exc.details}, status=exc.http_status
        )
    response = drf_exception_handler(exc, context)
    if response is not None:
        response.data = _drf_error_body(exc, response.data)
    return response


def _drf_error_body(exc, data: Any) -> dict[str, Any]:
    codes = exc.get_codes() if hasattr(exc, "get_codes") else None
    code = codes if isinstance(codes, str) else INVALID_REQUEST
    details = {"retry_after": exc.wait} if isinstance(exc, Throttled) and exc.wait is not None else None
    if isinstance(data, dict) and "detail" in data:
        return {**data, "code": code, "message": str(data["detail"]), "details": details}
    # A serializer's field errors (field → messages), as `RequestInvalid` answers them.
    if not isinstance(data, dict):
        data = {"non_field_errors": data if isinstance(data, list) else [data]}
    errors = {str(k): [str(m) for m in (v if isinstance(v, list) else [v])] for k, v in data.items()}
    return {**RequestInvalid(errors).response().data, "code": code}


# Base of every REST view (authentication, scopes and throttles come from the settings). No
# docstring on purpose: drf-spectacular would show it as every operation's description.
class ApiView(APIView):
    pass


def endpoint(
    *,
    output: type[BaseModel] | None,
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    status: int = 200,
    summary: str | None = None,
    operation_id: str | None = None,
    extra_responses: dict | None = None,
    **schema: Any,
) -> Callable:
    """Declare one typed REST operation (see the module docstring). `output=None` answers with
    an empty body (e.g. 204 on delete). A body `body=` cannot parse (a multipart upload the view
    reads itself) is still declared: `request={"multipart/form-data": Model}` goes to OpenAPI.
    A method may return its own response (a DRF `Response`, or a file or stream)."""
    # A body is JSON (DRF would also parse a form, but no client is meant to send one).
    request_schema = schema.pop("request", {"application/json": body} if body is not None else None)

    def decorate(method: Callable) -> Callable:
        doc_summary, doc_description = docstring_parts(method.__doc__)
        schema.setdefault("tags", app_tags(method.__module__))
        if doc_description:
            schema.setdefault("description", doc_description)

        @functools.wraps(method)
        def handler(self, request, *args, **kwargs):
            if body is not None:
                kwargs["body"] = parse(body, request.data)
            if query is not None:
                kwargs["query"] = parse(query, _query_dict(request.query_params, query))
            result = method(self, request, *args, **kwargs)
            if isinstance(result, HttpResponseBase):
                return result
            if output is None:
                return Response(status=status)
            return Response(dump(output, result), status=status)

        # The docstring is summary and description now; left on the handler, drf-spectacular
        # would show it again as the description (the view class's docstring still is one).
        handler.__doc__ = None
        # The declared input models, for tests that walk every operation.
        handler.body_model, handler.query_model = body, query
        extra = dict(extra_responses or {})
        # A status the extra responses document with a media type (e.g. (200, "text/event-stream"))
        # must not also appear bare: drf-spectacular cannot merge the two.
        documented = {k[0] if isinstance(k, tuple) else k for k in extra}
        responses = {} if output is None and status in documented else {status: output}
        responses.update(extra)
        parameters = [query] if query is not None else []
        parameters += schema.pop("parameters", [])
        return extend_schema(
            operation_id=operation_id,
            summary=doc_summary if summary is None else summary,
            request=request_schema,
            parameters=parameters or None,
            responses=responses,
            **schema,
        )(handler)

    return decorate


def listed(key: str, record: Callable[[Any], Any], found: tuple[Sequence[Any], int], query: Any) -> dict:
    """A list operation's answer in the one pagination shape (`contracts.page`): the service's
    `(rows, total)` for the page `query` asks for (its `limit` and `offset`), each row through
    `record`."""
    rows, total = found
    return page(key, [record(row) for row in rows], total, limit=query.limit, offset=query.offset)


def sliced(rows: Any, query: Any) -> tuple[Sequence[Any], int]:
    """A queryset's `(rows, total)` for the page `query` asks for, as a list service answers it."""
    return rows[query.offset : query.offset + query.limit], rows.count()


def refusal(description: str) -> OpenApiResponse:
    """An error response for `extra_responses`, in the one error shape: `{409: refusal("…")}`."""
    from apps.core.contracts import ErrorOut

    return OpenApiResponse(ErrorOut, description=description)


def app_tags(module: str) -> list[str]:
    """The OpenAPI tag of the app a module belongs to: its `api_tag`, else its label."""
    config = apps.get_containing_app_config(module)
    if config is None:
        raise LookupError(f"{module} belongs to no installed app: pass tags= to endpoint()")
    return [getattr(config, "api_tag", None) or config.label]


def docstring_parts(doc: str | None) -> tuple[str, str]:
    """A docstring's first paragraph and the rest, each paragraph's lines joined by spaces (so a
    wrapped docstring reads as the one-line string it replaces; paragraphs stay apart)."""
    paragraphs = [" ".join(p.split("\n")) for p in inspect.cleandoc(doc or "").split("\n\n") if p.strip()]
    return (paragraphs[0] if paragraphs else ""), "\n\n".join(paragraphs[1:])


def parse(model: type[BaseModel], data: Any) -> BaseModel:
    """Validate input against an operation's input model. Unknown body fields and query parameters
    are ignored on the REST surface, on purpose (older and newer clients send fields this version
    does not know; a page link may carry a tracking parameter); a known field's bad value is
    refused. So schemathesis's negative mode reports a request whose only fault is an unknown name
    (`additionalProperties`) as "accepted": that is this rule, not a lenient field. The tools and
    MCP refuse unknown arguments (the models' `extra="forbid"`: a model can fix its typo)."""
    if not isinstance(data, dict):
        raise RequestInvalid({"non_field_errors": [_("Expected a JSON object.")]})
    known = _known_fields(model)
    try:
        return model.model_validate({k: v for k, v in data.items() if k in known})
    except ValidationError as exc:
        raise RequestInvalid(field_errors(exc), field_codes(exc)) from None


def dump(model: type[BaseModel], value: Any) -> Any:
    """Serialize a handler's result through its declared output model."""
    if not isinstance(value, model):
        value = model.model_validate(value)
    return value.model_dump(mode="json")


def field_errors(exc: ValidationError) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for error in exc.errors(include_url=False):
        location = ".".join(str(part) for part in error["loc"]) or "non_field_errors"
        errors.setdefault(location, []).append(validation_message(error))
    return errors


def field_codes(exc: ValidationError) -> dict[str, str]:
    """The bad fields whose error has a code of the catalog (`date_out_of_range`, `invalid_url` …):
    field → code, so a client can tell them apart without reading the message."""
    codes: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        if error["type"] in DECLARED:
            codes.setdefault(
                ".".join(str(part) for part in error["loc"]) or "non_field_errors", error["type"]
            )
    return codes


class RequestInvalid(Exception):
    """Bad input on a REST call: 400 with DRF's shape (field → messages) plus code and details
    (`field_errors`: field → first message; `field_codes`, when any: field → catalog code)."""

    def __init__(self, errors: dict[str, list[str]], codes: dict[str, str] | None = None) -> None:
        super().__init__(errors)
        self.errors = errors
        self.codes = codes or {}

    def response(self) -> Response:
        first = next(iter(self.errors.items()), ("", [""]))
        details: dict[str, Any] = {"field_errors": {k: v[0] for k, v in self.errors.items()}}
        if self.codes:
            details["field_codes"] = self.codes
        return Response(
            {
                **self.errors,
                "code": INVALID_REQUEST,
                "message": f"{first[0]}: {first[1][0]}" if first[0] else first[1][0],
                "details": details,
            },
            status=400,
        )


def _known_fields(model: type[BaseModel]) -> set[str]:
    names = set()
    for name, info in model.model_fields.items():
        names.add(name)
        if info.alias:
            names.add(info.alias)
        choices = getattr(info.validation_alias, "choices", None)
        if choices:
            names.update(c for c in choices if isinstance(c, str))
        elif isinstance(info.validation_alias, str):
            names.add(info.validation_alias)
    return names


def _query_dict(params, model: type[BaseModel]) -> dict[str, Any]:
    """A QueryDict as the model expects it: lists for list fields, single values otherwise."""
    out: dict[str, Any] = {}
    for key in params:
        info = model.model_fields.get(key)  # list-valued fields are never aliased
        is_list = info is not None and getattr(info.annotation, "__origin__", None) is list
        out[key] = params.getlist(key) if is_list else params.get(key)
    return out


ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
_ERROR_DESCRIPTIONS = {
    400: "Bad input: `invalid_request` names each bad field (`details.field_errors`), or a domain "
    "refusal such as `invalid_input`.",
    401: "No valid credential: `not_authenticated`, or a bad, expired or revoked key or token "
    "(`api_key_invalid`, `device_token_revoked` …).",
    403: "Not allowed: `permission_denied`, `forbidden`, or an API key without the scope "
    "(`api_key_scope_missing`, `api_key_endpoint_not_allowed`).",
    404: "`not_found`: missing, or not visible to the caller (both answer alike).",
    409: "`version_conflict`: the record changed since `expected_version`; `details.current` is "
    "the current record.",
    413: "`payload_too_large`: the body is larger than the server accepts.",
    429: "`throttled`: the API key's rate is used up; wait `Retry-After` seconds (`details.retry_after`).",
}
PRE_VIEW_REFUSALS = (400, 401, 403, 413, 429)


def document_error_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook: every operation documents the refusals it can answer,
    each with the one error body (`contracts.ErrorOut`, what `exception_handler` sends): 400 when
    it takes input, 401 and 403 when it needs a credential, 404 when it addresses a record by id
    (in the path, a filter or the body), 409 when it takes `expected_version`, 413 when it takes a
    body, 429 when an API key may call it. What an endpoint
    declares itself (`extra_responses`) stays as declared."""
    from apps.core.contracts import ErrorOut

    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("ErrorOut", ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}"))
    for item in result.get("paths", {}).values():
        for operation in item.values():
            responses = operation.setdefault("responses", {})
            refusals = _refusals(operation, schemas)
            for status in refusals:
                response = responses.setdefault(str(status), {"description": _ERROR_DESCRIPTIONS[status]})
                content = response.setdefault("content", {}).setdefault("application/json", {})
                declared = content.get("schema")
                if declared is None:
                    content["schema"] = ERROR_REF
                elif declared != ERROR_REF and status in PRE_VIEW_REFUSALS:
                    # Refused before the view runs (the input checks, DRF's authentication,
                    # permissions and throttles): that body is possible beside the view's own.
                    content["schema"] = {"anyOf": [declared, ERROR_REF]}
            for status, response in responses.items():
                if status[0] == "4" and not response.get("content"):
                    response["content"] = {"application/json": {"schema": ERROR_REF}}
    return result


def _refusals(operation: dict, schemas: dict) -> list[int]:
    parameters = operation.get("parameters", [])
    names = {p["name"] for p in parameters}
    for media in (operation.get("requestBody") or {}).get("content", {}).values():
        body = media.get("schema", {})
        while "$ref" in body:
            body = schemas.get(body["$ref"].rsplit("/", 1)[1], {})
        names |= set(body.get("properties", {}))
    statuses = [400] if parameters or operation.get("requestBody") else []
    schemes = {name for requirement in operation.get("security", [{}]) for name in requirement}
    if schemes:
        statuses += [401, 403]
    if any(p["in"] == "path" for p in parameters) or any(n.endswith(("_id", "_ids")) for n in names):
        statuses.append(404)
    if "expected_version" in names:
        statuses.append(409)
    if operation.get("requestBody"):
        statuses.append(413)
    if "apiKey" in schemes:
        statuses.append(429)
    return statuses


def document_error_codes(result, generator, request, public):
    """drf-spectacular postprocessing hook: the API description ends with the catalog of every
    error code (the one `manage.py error_codes` prints), so a mobile developer finds them."""
    from apps.core import errors

    errors.load_all()
    lines = ["", "## Error codes", "", "| code | HTTP | app | meaning |", "|---|---|---|---|"]
    for row in errors.catalog():
        status = row["http_status"] or "—"
        lines.append(f"| `{row['code']}` | {status} | {row['app']} | {row['description']} |")
    info = result.setdefault("info", {})
    info["description"] = (info.get("description") or "") + "\n".join(lines)
    return result
