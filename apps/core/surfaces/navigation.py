"""The main navigation, gathered from the apps' `navigation` declarations. Entries whose page is
not installed are shown disabled; entries with `visible` are shown only to whom it serves, and
entries with `badge` carry a count (refetched live from `badges`).

The badge counts (one to several COUNT queries each) are drawn on every page. They are kept per
process for the user with the newest live event id they were counted at
(`settings.CLAPILOT_BADGE_FRESHNESS`): a badge's page refetches it on its topics' events, so every
change that moves a count records an event of one of the badges' topics. When newer events exist,
one query asks whether any of them is of a badge's topic (`moving`) and only then are they counted
anew: the tasks written all day by an office move no approval count. `BADGE_TTL` bounds what no
event announces (a staged call expiring, a new day). Visibility is never kept across requests:
a permission change shows on the next page."""

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.urls import NoReverseMatch, get_resolver, get_urlconf, reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.module_loading import import_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext

from apps.core import plugins

BADGE_TTL = 30.0  # seconds
_BADGE_CACHE_SIZE = 2000
_badge_lock = threading.Lock()


@dataclass
class _Counted:
    """A person's badge counts as counted at `at` (monotonic seconds), when events up to `head`
    were committed. Events after `floor` may have committed after the count (ids are taken at
    insert, rows appear at commit; `mutations.services.SETTLE_SECONDS`), so they are the ones
    `moving` looks at, but for those of the badges' topics it already saw (`seen`)."""

    at: float
    head: int
    floor: int
    seen: list[int]
    counts: dict[str, int]


_badge_cache: dict[tuple[Any, ...], _Counted] = {}


def moving(topics: tuple[str, ...], after: int, head: int, seen: list[int] | None = None) -> list[int]:
    """The events after `after` up to `head` (but `seen`) that may move a badge of `topics`
    (`settings.CLAPILOT_BADGE_MOVING`; core names the event stream without importing it)."""
    found: list[int] = import_string(settings.CLAPILOT_BADGE_MOVING)(topics, after, head, seen)
    return found


def freshness(request: HttpRequest) -> int:
    """The newest live event id, read once per request (the navigation's badges and the page's
    live cursor share it). Read no later than the cursor was before, it errs on replaying an event."""
    if not hasattr(request, "_clapilot_freshness"):
        request._clapilot_freshness = int(import_string(settings.CLAPILOT_BADGE_FRESHNESS)())  # type: ignore[attr-defined]
    return int(request._clapilot_freshness)  # type: ignore[attr-defined]


def _visible(entries: Iterable[plugins.NavEntry], user: Any) -> list[plugins.NavEntry]:
    return [e for e in entries if not e.visible or import_string(e.visible)(user)]


def badge_counts(user: Any, entries: Iterable[plugins.NavEntry], token: int | None = None) -> dict[str, int]:
    """{entry key: count} for the visible entries with a badge. With `token` (the request's
    freshness) the counts are kept until an event of a badge's topic (or `BADGE_TTL`); without
    one they are counted anew."""
    entries = list(entries)
    with_badge = {e.key: e.badge for e in entries if e.badge}

    def count() -> dict[str, int]:
        return {key: import_string(path)(user) for key, path in with_badge.items()}

    if token is None or not settings.CLAPILOT_BADGE_MEMO:
        return count()
    topics = tuple(dict.fromkeys(t for e in entries if e.badge for t in e.topics()))
    # Role and active flag: what a count's scope most often turns on changes no event.
    key = (user.pk, getattr(user, "role", None), user.is_active, timezone.localdate(), tuple(with_badge))
    now = time.monotonic()
    kept = _badge_cache.get(key)
    if kept is not None and now - kept.at < BADGE_TTL:
        if token == kept.head:
            return kept.counts
        if token > kept.head and not moving(topics, kept.floor, token, kept.seen):
            kept.head = token
            return kept.counts
    floor = min(int(import_string(settings.CLAPILOT_BADGE_SETTLED)()), token)
    seen = moving(topics, floor, token)
    counts = count()
    with _badge_lock:
        if len(_badge_cache) >= _BADGE_CACHE_SIZE:
            _badge_cache.clear()  # mostly people who left: dropping all is as good as LRU
        _badge_cache[key] = _Counted(now, token, floor, seen, counts)
    return counts


def _resolved_entries(entries: list[plugins.NavEntry]) -> list[dict[str, Any]]:
    """What the visible `entries` show that is the same for everybody: label (in the active
    language), URL, badge topics, and their HTML. Kept per URL configuration (on its resolver, as
    `resolving` does: a test's ROOT_URLCONF override starts anew), language and set of entries;
    visibility, the active entry and the counts stay per request."""
    memo: dict[tuple[Any, ...], list[dict[str, Any]]] = get_resolver(get_urlconf()).__dict__.setdefault(
        "_clapilot_navigation", {}
    )
    key = (get_language(), tuple((e.key, e.url_name) for e in entries))
    resolved = memo.get(key)
    if resolved is None:
        resolved = [_resolve(entry) for entry in entries]
        if len(memo) >= 64:
            memo.clear()
        memo[key] = resolved
    return resolved


def _resolve(entry: plugins.NavEntry) -> dict[str, Any]:
    try:
        url = reverse(entry.url_name)
    except NoReverseMatch:
        url = None
    label = str(entry.label)
    item: dict[str, Any] = {"key": entry.key, "label": label, "url": url}
    if entry.badge:
        item["badge_topics"] = " ".join(entry.topics())
    if url is None:
        item["html"] = (
            f'<span class="disabled" title="{escape(gettext("Not available yet"))}">{escape(label)}</span>'
        )
    else:
        item["html"] = (f'<a href="{escape(url)}"', f">{escape(label)}")
        if entry.badge:
            item["badge_html"] = (
                f' <span class="badge nav-count" data-nav-badge="{escape(entry.key)}"'
                f' data-badge-topics="{escape(item["badge_topics"])}"'
            )
    return item


def resolved_navigation(
    current_path: str, user: Any = None, request: HttpRequest | None = None
) -> list[dict[str, Any]]:
    entries = _visible(plugins.navigation(), user)
    token = freshness(request) if request is not None and user is not None and user.is_authenticated else None
    counts = badge_counts(user, entries, token)
    items: list[dict[str, Any]] = []
    for resolved in _resolved_entries(entries):
        item = {**resolved, "active": False}
        if "badge_topics" in item:
            item["badge"] = counts[item["key"]]
        items.append(item)
    # The entry whose page is the longest prefix of the path is the active one (/kalender/fristen/
    # is Fristen, not Kalender as well).
    matches = [i for i in items if i["url"] and i["url"] != "/" and current_path.startswith(i["url"])]
    if matches:
        max(matches, key=lambda i: len(i["url"]))["active"] = True
    return items


def navigation_html(items: list[dict[str, Any]]) -> SafeString:
    """The main navigation's entries as base.html draws them (built here: a template loop with
    its conditions over a dozen entries cost two milliseconds of every page)."""
    parts = []
    for item in items:
        if item["url"] is None:
            parts.append(f"\n        \n          {item['html']}\n        \n      ")
            continue
        head, label = item["html"]
        active = ' class="active" aria-current="page"' if item["active"] else ""
        badge = ""
        if "badge_html" in item:
            count = item["badge"]
            badge = f"{item['badge_html']}{'' if count else ' hidden'}>{count}</span>"
        parts.append(f"\n        \n          {head}{active}{label}{badge}</a>\n        \n      ")
    return mark_safe("".join(parts))  # noqa: S308 (every value escaped where it is resolved)


def badges(request: HttpRequest) -> JsonResponse:
    """The navigation's counts for the signed-in person: {entry key: count}. Always counted anew:
    a page asks after an event it was told of."""
    return JsonResponse(badge_counts(request.user, _visible(plugins.navigation(), request.user)))
