"""The main navigation, gathered from the apps' `navigation` declarations. Entries whose page is
not installed are shown disabled."""

from django.urls import NoReverseMatch, reverse

from apps.core import plugins


def resolved_navigation(current_path: str) -> list[dict]:
    items = []
    for entry in plugins.navigation():
        try:
            url = reverse(entry.url_name)
        except NoReverseMatch:
            url = None
        active = bool(url) and url != "/" and current_path.startswith(url)
        items.append({"key": entry.key, "label": entry.label, "url": url, "active": active})
    return items
