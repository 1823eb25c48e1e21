"""Page plumbing shared by every app: how a `DomainError` answers on a server-rendered page.

* `@domain_errors` on a view: not found → 404 page, forbidden → 403 page; any other domain error
  answers htmx with its message as text and JSON callers with `{"code", "message"}` (the
  error's status), and otherwise becomes an error message on the page the person came from.
  `@domain_errors(json=True)` answers every domain error as JSON (fetch endpoints).
* `form_errors(form, exc)`: puts the error's field errors on the form (`client_id` → `client`),
  or its message as a form-wide error.
* `with reported(request) as outcome:` for a POST that redirects either way: a domain error
  becomes an error message and `outcome.failed` is set.
* `paged(request, PAGE_SIZE)`: a list page's window (`.window` for its lister's filter model,
  `.page(total)` for the pagination links).
* `query(request, TaskFilter)`: a page's filters through the filter model REST and the tools use;
  a bad value is a message on the page, never a 500. `posted(request, TaskMove, status="status_id")`:
  a small POST through its input model.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, get_origin

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, RawPostDataException
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from pydantic import BaseModel, ValidationError

from apps.core import jsontext
from apps.core.errors import DomainError, Forbidden, InvalidInput, NotFound
from apps.core.inputs import build
from apps.core.messages import validation_message


def domain_errors(view: Callable | None = None, *, json: bool = False) -> Callable:
    """`@domain_errors` or `@domain_errors(json=True)` (for endpoints that always answer JSON)."""

    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            try:
                return view(request, *args, **kwargs)
            except DomainError as exc:
                return error_response(request, exc, json=json)

        return wrapper

    return decorate(view) if view is not None else decorate


def error_response(request, exc: DomainError, *, json: bool = False):
    if json:
        return error_json(exc)
    if isinstance(exc, NotFound):
        raise Http404(exc.message) from None
    if isinstance(exc, Forbidden):
        raise PermissionDenied(exc.message) from None
    if getattr(request, "htmx", False):
        return HttpResponse(exc.message, status=exc.http_status)
    if wants_json(request):
        return error_json(exc)
    messages.error(request, exc.message)
    return redirect(came_from(request))


def error_json(exc: DomainError) -> JsonResponse:
    """`{"code", "message"}` with the error's status, plus `details` when the error carries any
    (a version conflict's current record, field errors), as the REST API answers them."""
    body = {"code": exc.code, "message": exc.message}
    if exc.details is not None:
        body["details"] = exc.details
    return JsonResponse(body, status=exc.http_status)


def wants_json(request) -> bool:
    return bool(getattr(request, "htmx", False)) or "application/json" in request.headers.get("Accept", "")


def came_from(request, default: str | None = None) -> str:
    """The page the person came from when it is ours; else `default` or the current path."""
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return default or request.path


def submitted(request: HttpRequest) -> Any:
    """The data a page form binds to: the POST, or None on a GET (an unbound form)."""
    return request.POST if request.method == "POST" else None


def back_target(request: HttpRequest, default: str, name: str = "next") -> str:
    """Where a form sends the person back to: its `name` field (`next`, `return_to`) when that is
    a path on this site, else `default` (never another host, `//host` or a bare word)."""
    target = str(request.POST.get(name, "") or "")
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def form_errors(form, exc: DomainError) -> None:
    fields = exc.field_errors
    for field, message in fields.items():
        name = field if field in form.fields else field.removesuffix("_id")
        form.add_error(name if name in form.fields else None, message)
    if not fields:
        form.add_error(None, exc.message)


@dataclass
class Outcome:
    failed: bool = False
    error: DomainError | None = None


@contextmanager
def reported(request) -> Iterator[Outcome]:
    outcome = Outcome()
    try:
        yield outcome
    except DomainError as exc:
        messages.error(request, exc.message)
        outcome.failed, outcome.error = True, exc


# A page number beyond this is no page anyone reaches; it would only overflow the offset.
MAX_PAGE_NUMBER = 100_000


def page_number(request, param: str = "page") -> int:
    """The `?page=` (or `?<param>=`) of a paginated list: 1 for anything missing, invalid or out
    of range (a number of any length: it is never converted beyond MAX_PAGE_NUMBER's digits)."""
    raw = request.GET.get(param, "1")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > len(str(MAX_PAGE_NUMBER)):
        return 1
    return int(raw) if 1 <= int(raw) <= MAX_PAGE_NUMBER else 1


@dataclass(frozen=True)
class Paging:
    """A paginated list's window: the page asked for (`number`) of `per_page` rows. The lister
    takes `window` (its filter model's `limit` and `offset`) and answers the rows and their
    total; `page(total)` is the Django page the pagination links show."""

    number: int
    per_page: int

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.per_page

    @property
    def window(self) -> dict[str, int]:
        return {"limit": self.per_page, "offset": self.offset}

    def page(self, total: int) -> Page[int]:
        return Paginator(range(total), self.per_page).get_page(self.number)


def paged(request: HttpRequest, per_page: int, param: str = "page") -> Paging:
    """The window of a paginated list page (`?page=`, or `?<param>=`, through `page_number`)."""
    return Paging(page_number(request, param), per_page)


def id_param(request, name: str) -> int | None:
    """A query parameter that names a row (`?folder=12`): its id, or None for anything that is
    not a positive number within PostgreSQL's bigint (of any length: never converted blindly)."""
    raw = request.GET.get(name) or ""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        return None
    value = int(raw)
    return value if 1 <= value <= 2**63 - 1 else None


def json_body(request) -> Any:
    """The JSON body of a page's fetch endpoint, through `jsontext.loads` (nesting, long numbers,
    NUL: their InvalidInput subclasses); anything else, also a form post whose stream the CSRF
    check has read, is InvalidInput."""
    try:
        return jsontext.loads(request.body or b"{}")
    except (ValueError, RawPostDataException):
        raise InvalidInput(_("The request is not valid JSON.")) from None


def querystring_without_page(request) -> str:
    """The list's filters as a query string, for the pagination links."""
    params = request.GET.copy()
    params.pop("page", None)
    return params.urlencode()


QueryModel = TypeVar("QueryModel", bound=BaseModel)


def query(request: HttpRequest, model: type[QueryModel], **values: Any) -> QueryModel:
    """A page's filters (`request.GET`) through the operation's filter model, the one REST and the
    tools use: parameters the model does not know (`page`, a board picker …) and empty ones are
    left out; a bad value becomes an error message on the page and is dropped, never a 500.
    `values` are added as they are (a page's `limit` and `offset`)."""
    known = _query_names(model)
    data: dict[str, Any] = {key: value for key, value in request.GET.items() if key in known and value != ""}
    data.update(values)
    while True:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            bad = {str(error["loc"][0]) for error in exc.errors(include_url=False) if error["loc"]}
            for error in exc.errors(include_url=False):
                where = ".".join(str(part) for part in error["loc"])
                text = validation_message(dict(error))
                messages.error(request, f"{where}: {text}" if where else text)
            dropped = {key for key in data if key in bad or _field_of(model, key) in bad}
            if not dropped:
                return model()
            data = {key: value for key, value in data.items() if key not in dropped}


def query_input(request: HttpRequest, model: type[QueryModel], **values: Any) -> QueryModel:
    """A download's or report's query string through its input model, strictly: parameters the
    model does not know and empty ones are left out, as in `query`, but a bad value raises its
    field's domain error (as `posted` does for a POST) instead of becoming a page message."""
    known = _query_names(model)
    data: dict[str, Any] = {key: value for key, value in request.GET.items() if key in known and value != ""}
    return build(model, **{**data, **values})


def _query_names(model: type[BaseModel]) -> dict[str, str]:
    """Every name a query string may use for a field (its own, its aliases) → the field."""
    names: dict[str, str] = {}
    for name, info in model.model_fields.items():
        names[name] = name
        alias = info.validation_alias
        for choice in getattr(alias, "choices", None) or ([alias] if isinstance(alias, str) else []):
            if isinstance(choice, str):
                names[choice] = name
    return names


def _field_of(model: type[BaseModel], key: str) -> str | None:
    return _query_names(model).get(key)


def posted(request: HttpRequest, model: type[QueryModel], **names: str) -> QueryModel:
    """A small POST (a fetch endpoint's, an htmx action's) through the operation's input model:
    `names` maps a form field to the model's field (default: every model field under its own
    name); empty fields are left out. A bad value raises its field's domain error (`InvalidInput`
    …), which `@domain_errors` answers like any other."""
    fields = names or {name: name for name in model.model_fields}
    values = {field: request.POST[name] for name, field in fields.items() if request.POST.get(name, "") != ""}
    return build(model, **values)


def posted_form(request: HttpRequest, model: type[QueryModel]) -> QueryModel:
    """A whole posted form (a bulk decision's checkboxes and fields) through the operation's input
    model: every model field under its own name, a `list[...]` field with every value posted under
    it, empty values kept (the model says what an empty value means); a field not posted takes the
    model's default. A bad value raises its field's domain error, as in `posted`."""
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if name in request.POST:
            many = get_origin(info.annotation) is list
            values[name] = request.POST.getlist(name) if many else request.POST[name]
    return build(model, **values)
