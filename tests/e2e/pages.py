"""Every staff page of the product, found in the URL configuration (issue 14, items 1 and 13).

The layout and accessibility tests walk these: a route becomes a page when a GET answers a full
HTML document (POST-only actions answer 405, htmx fragments have no <html>). Route arguments
come from SAMPLES, filled from the demo office; a new route with an argument nobody sampled
fails the tests, so a new page cannot slip past them.
"""

from __future__ import annotations

import re

from django.urls import URLPattern, URLResolver, get_resolver

# Not staff pages: the API, the admin (Django's own layout), auth and language flows, feeds,
# public share links, health and static-like files.
SKIPPED_PREFIXES = (
    "api/",
    "admin/",
    "accounts/",
    "i18n/",
    "jsi18n/",
    "language/",
    "healthz",
    "favicon.ico",
    "navigation/",
    "s/<",
    "static/",
    "media/",
)
SKIPPED_SUFFIXES = (".ics", ".json", ".csv", ".pdf", "/json/", "/stream", "/status/", "/karte/")
ARGUMENT = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
DOWNLOAD = re.compile(r"\.<[^>]+>$")  # an export in a chosen format, e.g. "fristenbuch.<str:fmt>"


def routes() -> list[str]:
    """Every route of the project as a string, e.g. "mandanten/<int:client_id>/"."""
    found: list[str] = []

    def walk(patterns, prefix: str) -> None:
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, route)
            elif isinstance(entry, URLPattern):
                found.append(route.lstrip("^").rstrip("$"))

    walk(get_resolver().url_patterns, "")
    return found


def candidate_paths(samples: dict[str, object]) -> tuple[list[str], list[str]]:
    """(paths to try, routes whose arguments have no sample)."""
    paths, unsampled = [], []
    for route in routes():
        if route.startswith(SKIPPED_PREFIXES) or route.endswith(SKIPPED_SUFFIXES) or DOWNLOAD.search(route):
            continue
        names = [m["name"] for m in ARGUMENT.finditer(route)]
        if any(name not in samples for name in names):
            unsampled.append(route)
            continue
        path = "/" + ARGUMENT.sub(lambda m: str(samples[m["name"]]), route)
        if path not in paths:
            paths.append(path)
    return paths, unsampled


def full_pages(page, base_url: str, samples: dict[str, object]) -> list[str]:
    """The candidate paths that answer a GET with a whole HTML page (signed in as `page`'s user).
    Anything failing (5xx) is reported, never skipped."""
    paths, unsampled = candidate_paths(samples)
    assert not unsampled, f"add samples to tests/e2e/test_layout.py for these routes: {unsampled}"
    pages, broken = [], []
    for path in paths:
        response = page.request.get(f"{base_url}{path}", max_redirects=0)
        if response.status >= 500:
            broken.append((path, response.status))
        if response.status != 200 or "text/html" not in response.headers.get("content-type", ""):
            continue
        if "<html" in response.text()[:400]:
            pages.append(path)
    assert not broken, broken
    return pages
