"""Page plumbing shared by every app: how a `DomainError` answers on a server-rendered page.

* `@domain_errors` on a view: not found → 404 page, forbidden → 403 page; any other domain error
  answers JSON `{"code", "message"}` to htmx and fetch callers, and otherwise becomes an error
  message on the page the person came from.
* `form_errors(form, exc)`: puts the error's field errors on the form (`client_id` → `client`),
  or its message as a form-wide error.
* `with reported(request) as outcome:` for a POST that redirects either way: a domain error
  becomes an error message and `outcome.failed` is set.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme

from apps.core.errors import DomainError, Forbidden, NotFound


def domain_errors(view: Callable) -> Callable:
    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except NotFound as exc:
            raise Http404(exc.message) from None
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from None
        except DomainError as exc:
            if wants_json(request):
                return JsonResponse({"code": exc.code, "message": exc.message}, status=exc.http_status)
            messages.error(request, exc.message)
            return redirect(came_from(request))

    return wrapper


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
