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

from django.conf import settings
from django.http import JsonResponse
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.module_loading import import_string

from apps.core import plugins

BADGE_TTL = 30.0  # seconds
_BADGE_CACHE_SIZE = 2000
_badge_cache: dict[tuple, tuple[float, dict[str, int]]] = {}
_badge_lock = threading.Lock()


def freshness(request) -> int:
    """The newest live event id, read once per request (the navigation's badges and the page's
    live cursor share it). Read no later than the cursor was before, it errs on replaying an event."""
    if not hasattr(request, "_clapilot_freshness"):
        request._clapilot_freshness = import_string(settings.CLAPILOT_BADGE_FRESHNESS)()
    return request._clapilot_freshness


def _visible(entries, user) -> list:
    return [e for e in entries if not e.visible or import_string(e.visible)(user)]


def badge_counts(user, entries, token=None) -> dict[str, int]:
    """{entry key: count} for the visible entries with a badge; kept under `token` (the request's
    freshness) when one is given, counted anew otherwise."""
    with_badge = [e for e in entries if e.badge]
    if token is None or not settings.CLAPILOT_BADGE_MEMO:
        return {e.key: import_string(e.badge)(user) for e in with_badge}
    key = (user.pk, token, timezone.localdate(), tuple(e.key for e in with_badge))
    now = time.monotonic()
    hit = _badge_cache.get(key)
    if hit is not None and now - hit[0] < BADGE_TTL:
        return hit[1]
    counts = {e.key: import_string(e.badge)(user) for e in with_badge}
    with _badge_lock:
        if len(_badge_cache) >= _BADGE_CACHE_SIZE:
            _badge_cache.clear()  # older tokens are dead keys: dropping all is as good as LRU
        _badge_cache[key] = (now, counts)
    return counts


def resolved_navigation(current_path: str, user=None, request=None) -> list[dict]:
    entries = _visible(plugins.navigation(), user)
    token = freshness(request) if request is not None and user is not None and user.is_authenticated else None
    counts = badge_counts(user, entries, token)
    items = []
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


def badges(request) -> JsonResponse:
    """The navigation's counts for the signed-in person: {entry key: count}. Always counted anew:
    a page asks after an event it was told of."""
    return JsonResponse(badge_counts(request.user, _visible(plugins.navigation(), request.user)))
