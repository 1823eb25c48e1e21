"""URL resolution remembered per path for the web process's ASGI handler.

Django resolves every request's path by trying the URL patterns in order (about 350 here): about
1 ms of CPU per request, 15 % of a /healthz answer. The answer for a path only changes with the URL
configuration, so each resolver keeps the matches it found (a new resolver, e.g. after a test's
ROOT_URLCONF override, starts empty). A path that matches nothing is not remembered (Resolver404),
and the memo is bounded: paths with ids in them are many, so it starts over when it is full.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import ResolverMatch, get_resolver

MEMO_SIZE = 4096


class RememberedResolution:
    """Mixin for a Django handler: `resolve_request` from the memo when it can."""

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        if hasattr(request, "urlconf"):  # a middleware chose another URL conf for this request
            match: ResolverMatch = super().resolve_request(request)  # type: ignore[misc]
            return match
        resolver = get_resolver()
        memo: dict[str, ResolverMatch] = resolver.__dict__.setdefault("_clapilot_resolved", {})
        path = request.path_info
        remembered = memo.get(path)
        if remembered is None:
            remembered = resolver.resolve(path)
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[path] = remembered
        request.resolver_match = remembered
        return remembered
