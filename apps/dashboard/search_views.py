"""The header search's pages: the full results (/suche/) and the drop-down of top hits that
header-search.js fetches as the person types (/suche/vorschlaege/)."""

from __future__ import annotations

from typing import Any

from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.core.errors import DomainError
from apps.core.surfaces import web
from apps.dashboard import search
from apps.dashboard.contracts import SearchQuery


def _context(request, *, quick: bool) -> tuple[dict, int]:
    raw = web.query(request, SearchQuery).q
    context: dict[str, Any] = {
        "query": raw.strip()[: search.QUERY_MAX],
        "outcomes": [],
        "error": "",
        "hint": "",
    }
    try:
        words = search.clean(raw)
    except DomainError as exc:
        context["error"] = exc.field_errors.get("q") or exc.message
        return context, 400
    context["query"] = words
    if len(words) < search.MIN_CHARS:
        context["hint"] = search.too_short() if words else ""
        return context, 200
    context["outcomes"] = search.run(request.principal, words, quick=quick)
    context["total_hits"] = search.total_hits(context["outcomes"])
    return context, 200


@require_GET
def results(request):
    context, status = _context(request, quick=False)
    return render(request, "dashboard/search.html", context, status=status)


@require_GET
def suggestions(request):
    context, status = _context(request, quick=True)
    response = render(request, "dashboard/_search_suggestions.html", context, status=status)
    response["Cache-Control"] = "no-store"
    return response
