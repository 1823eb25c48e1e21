"""The main navigation, gathered from the apps' `navigation` declarations. Entries whose page is
not installed are shown disabled; entries with `visible` are shown only to whom it serves, and
entries with `badge` carry a count (refetched live from `badges`)."""

from django.http import JsonResponse
from django.urls import NoReverseMatch, reverse
from django.utils.module_loading import import_string

from apps.core import plugins


def resolved_navigation(current_path: str, user=None) -> list[dict]:
    items = []
    for entry in plugins.navigation():
        if entry.visible and not import_string(entry.visible)(user):
            continue
        try:
            url = reverse(entry.url_name)
        except NoReverseMatch:
            url = None
        item = {"key": entry.key, "label": entry.label, "url": url, "active": False}
        if entry.badge:
            item["badge"] = import_string(entry.badge)(user)
            item["badge_topics"] = " ".join(entry.topics())
        items.append(item)
    # The entry whose page is the longest prefix of the path is the active one (/kalender/fristen/
    # is Fristen, not Kalender as well).
    matches = [i for i in items if i["url"] and i["url"] != "/" and current_path.startswith(i["url"])]
    if matches:
        max(matches, key=lambda i: len(i["url"]))["active"] = True
    return items


def badges(request) -> JsonResponse:
    """The navigation's counts for the signed-in person: {entry key: count}."""
    counts = {
        entry.key: import_string(entry.badge)(request.user)
        for entry in plugins.navigation()
        if entry.badge and (not entry.visible or import_string(entry.visible)(request.user))
    }
    return JsonResponse(counts)
