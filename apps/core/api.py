"""REST plumbing shared by every app: typed endpoints and one error table.

An endpoint is an `ApiView` method decorated with `endpoint(...)`, naming the operation's input
model (`body=` for JSON bodies, `query=` for query strings) and its output model. The decorator
validates the input, hands the model instance to the method, validates what the method returns
against the output model and documents both in OpenAPI (drf-spectacular's pydantic support):

    class TaskListView(ApiView):
        @endpoint(query=TaskFilter, output=TaskPage, operation_id="tasks_list")
        def get(self, request, query: TaskFilter):
            tasks, total = services.list_tasks(request.principal, **query.service_kwargs())
            return page("tasks", [TaskOut.of(t) for t in tasks], total, limit=query.limit, offset=query.offset)

The operation's summary is the first paragraph of the method's docstring (there: "List tasks."),
its description the rest (or `summary=` / `description=`); its tag is the app's (its
`DomainApp.api_tag`, else the app label) unless `tags=` says otherwise.

`request.principal` is resolved once by the accounts middleware and the API authentication
classes. A `DomainError` becomes `{"code", "message", "details"}` with its HTTP status here.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from pydantic import BaseModel, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from apps.core.errors import DomainError
from apps.core.messages import validation_message

INVALID_REQUEST = "invalid_request"


def exception_handler(exc, context):
    """`DomainError` → `{"code", "message", "details"}` with the error's HTTP status; DRF's own
    errors keep DRF's shape plus a `code` so clients can always branch on `code`."""
    if isinstance(exc, RequestInvalid):
        return exc.response()
    if isinstance(exc, DomainError):
        return Response(
            {"code": exc.code, "message": exc.message, "details": exc.details}, status=exc.http_status
        )
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "code" not in response.data:
        codes = exc.get_codes() if hasattr(exc, "get_codes") else None
        response.data["code"] = codes if isinstance(codes, str) else INVALID_REQUEST
    return response


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
    request_schema = schema.pop("request", body)

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
    """Validate input against an operation's input model. Unknown fields are ignored on the REST
    surface (older and newer clients send fields this version does not know)."""
    if not isinstance(data, dict):
        raise RequestInvalid({"non_field_errors": [_("Expected a JSON object.")]})
    known = _known_fields(model)
    try:
        return model.model_validate({k: v for k, v in data.items() if k in known})
    except ValidationError as exc:
        raise RequestInvalid(field_errors(exc)) from None


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


class RequestInvalid(Exception):
    """Bad input on a REST call: 400 with DRF's shape (field → messages) plus code and details."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__(errors)
        self.errors = errors

    def response(self) -> Response:
        first = next(iter(self.errors.items()), ("", [""]))
        return Response(
            {
                **self.errors,
                "code": INVALID_REQUEST,
                "message": f"{first[0]}: {first[1][0]}" if first[0] else first[1][0],
                "details": {"field_errors": {k: v[0] for k, v in self.errors.items()}},
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
