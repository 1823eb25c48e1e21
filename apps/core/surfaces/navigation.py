"""The main navigation, gathered from the apps' `navigation` declarations. Entries whose page is
not installed are shown disabled; entries with `visible` are shown only to whom it serves, and
entries with `badge` carry a count (refetched live from `badges`).

The badge counts (one to several COUNT queries each) are drawn on every page. They are kept per
process for the user, keyed on the newest live event id (`settings.CLAPILOT_BADGE_FRESHNESS`): a
badge's page refetches it on its topics' events, so every change that moves a count records an
event, and any event (from any process) makes the next page count anew. `BADGE_TTL` bounds what
no event announces (a staged call expiring, a new day). Visibility is never kept across requests:
a permission change shows on the next page."""

import threading
import time
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.module_loading import import_string

from apps.core import plugins

BADGE_TTL = 30.0  # seconds
_BADGE_CACHE_SIZE = 2000
_badge_cache: dict[tuple[Any, ...], tuple[float, dict[str, int]]] = {}
_badge_lock = threading.Lock()


def freshness(request: HttpRequest) -> int:
    """The newest live event id, read once per request (the navigation's badges and the page's
    live cursor share it). Read no later than the cursor was before, it errs on replaying an event."""
    if not hasattr(request, "_clapilot_freshness"):
        request._clapilot_freshness = int(import_string(settings.CLAPILOT_BADGE_FRESHNESS)())  # type: ignore[attr-defined]
    return int(request._clapilot_freshness)  # type: ignore[attr-defined]


def _visible(entries: Iterable[plugins.NavEntry], user: Any) -> list[plugins.NavEntry]:
    return [e for e in entries if not e.visible or import_string(e.visible)(user)]


def badge_counts(user: Any, entries: Iterable[plugins.NavEntry], token: int | None = None) -> dict[str, int]:
    """{entry key: count} for the visible entries with a badge; kept under `token` (the request's
    freshness) when one is given, counted anew otherwise."""
    with_badge = {e.key: e.badge for e in entries if e.badge}

    def count() -> dict[str, int]:
        return {key: import_string(path)(user) for key, path in with_badge.items()}

    if token is None or not settings.CLAPILOT_BADGE_MEMO:
        return count()
    # Role and active flag: what a count's scope most often turns on changes no event.
    key = (
        user.pk,
        getattr(user, "role", None),
        user.is_active,
        token,
        timezone.localdate(),
        tuple(with_badge),
    )
    now = time.monotonic()
    hit = _badge_cache.get(key)
    if hit is not None and now - hit[0] < BADGE_TTL:
        return hit[1]
    counts = count()
    with _badge_lock:
        if len(_badge_cache) >= _BADGE_CACHE_SIZE:
            _badge_cache.clear()  # older tokens are dead keys: dropping all is as good as LRU
        _badge_cache[key] = (now, counts)
    return counts


def resolved_navigation(
    current_path: str, user: Any = None, request: HttpRequest | None = None
) -> list[dict[str, Any]]:
    entries = _visible(plugins.navigation(), user)
    token = freshness(request) if request is not None and user is not None and user.is_authenticated else None
    counts = badge_counts(user, entries, token)
    items: list[dict[str, Any]] = []
    for entry in entries:
        try:
            url = reverse(entry.url_name)
        except NoReverseMatch:
            url = None
        item = {"key": entry.key, "label": entry.label, "url": url, "active": False}
        if entry.badge:
            item["badge"] = counts[entry.key]
            item["badge_topics"] = " ".join(entry.topics())
        items.append(item)
    # The entry whose page is the longest prefix of the path is the active one (/kalender/fristen/
    # is Fristen, not Kalender as well).
    matches = [i for i in items if i["url"] and i["url"] != "/" and current_path.startswith(i["url"])]
    if matches:
        max(matches, key=lambda i: len(i["url"]))["active"] = True
    return items


def badges(request: HttpRequest) -> JsonResponse:
    """The navigation's counts for the signed-in person: {entry key: count}. Always counted anew:
    a page asks after an event it was told of."""
    return JsonResponse(badge_counts(request.user, _visible(plugins.navigation(), request.user)))
