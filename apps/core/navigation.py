"""The main navigation. Entries whose page is not installed yet are shown disabled."""

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

MAIN_NAVIGATION = [
    ("chat", _("Chat"), "chat:index"),
    ("tasks", _("Tasks"), "tasks:board"),
    ("calendar", _("Calendar"), "calendar:index"),
    ("documents", _("Documents"), "documents:index"),
    ("clients", _("Clients"), "clients:index"),
    ("notes", _("Notes"), "notes:index"),
    ("wiki", _("Wiki"), "wiki:index"),
    ("knowledge", _("Knowledge"), "knowledge:index"),
    ("settings", _("Settings"), "settings"),
]


def resolved_navigation(current_path: str) -> list[dict]:
    items = []
    for key, label, url_name in MAIN_NAVIGATION:
        try:
            url = reverse(url_name)
        except NoReverseMatch:
            url = None
        active = bool(url) and url != "/" and current_path.startswith(url)
        items.append({"key": key, "label": label, "url": url, "active": active})
    return items
