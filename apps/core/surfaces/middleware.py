"""`BadInputMiddleware`: what no view can handle is refused before any view runs, with a 400 and
a stable code (`apps.core.errors`), never a 500:

* a NUL character in the path, the query string or a form field (`nul_character`): PostgreSQL
  text cannot hold it, and a search with it (`/mandanten/?q=%00`) fails in the database;
* an `X-User-Timezone` header that cannot be a time zone name (`invalid_time_zone`): over 255
  characters or with control characters. A well-formed but unknown name is ignored, as before
  (the profile's zone applies).

REST calls (`/api/…`) and JSON or htmx callers get `{"code", "message", "details"}`; a page
request gets a short error page with the message. JSON bodies are checked where they are parsed
(`apps.core.jsontext`).
"""

from __future__ import annotations

from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from apps.core import jsontext, timezones
from apps.core.errors import DomainError, InvalidTimeZone, NulCharacter


def problem(request) -> DomainError | None:
    """The first reason to refuse `request` outright (header, path, query string), or None."""
    header = request.headers.get("X-User-Timezone")
    if header is not None and not timezones.is_wellformed(header):
        return InvalidTimeZone(
            _("The X-User-Timezone header is not a time zone name (e.g. Europe/Berlin)."),
            details={"header": "X-User-Timezone", "max_length": timezones.NAME_MAX},
        )
    if jsontext.NUL in request.path:
        return NulCharacter.field("path", jsontext.nul_message())
    return _nul_in(request.GET)


def form_problem(request, view_func) -> DomainError | None:
    """A NUL in a form post's fields. A urlencoded body is cached, so reading it here changes
    nothing for the view. A multipart body is read only for views the CSRF check covers (it
    reads the form of each of their posts anyway): for csrf-exempt views (the REST API, whose
    parsers check their fields) it would consume the stream they read themselves."""
    if request.method != "POST":
        return None
    if request.content_type == "application/x-www-form-urlencoded" or (
        request.content_type == "multipart/form-data"
        and (hasattr(request, "_post") or not getattr(view_func, "csrf_exempt", False))
    ):
        return _nul_in(request.POST)
    return None


def _nul_in(data) -> DomainError | None:
    for key, values in data.lists():
        if jsontext.NUL in key or any(jsontext.NUL in v for v in values):
            return NulCharacter.field(jsontext.without_nul(key), jsontext.nul_message())
    return None


def refuse(request, exc: DomainError) -> HttpResponse:
    if request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", ""):
        return JsonResponse(
            {"code": exc.code, "message": exc.message, "details": exc.details}, status=exc.http_status
        )
    if request.headers.get("HX-Request"):
        return HttpResponse(exc.message, status=exc.http_status, content_type="text/plain; charset=utf-8")
    return render(request, "core/bad_request.html", {"message": exc.message}, status=exc.http_status)


class BadInputMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        exc = problem(request)
        if exc is not None:
            return refuse(request, exc)
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        exc = form_problem(request, view_func)
        return refuse(request, exc) if exc is not None else None
