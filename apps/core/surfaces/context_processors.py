import functools

from django.conf import settings
from django.utils import timezone
from django.utils.html import json_script
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from apps.core import plugins
from apps.core.surfaces.navigation import navigation_html, resolved_navigation


def navigation(request) -> dict:
    base = {"LANGUAGE_CHOICES": settings.LANGUAGES, "today": timezone.localdate()}
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return base
    # Resolved when a template draws it (once): partials rendered with the request (chat
    # bubbles, cards) never draw the navigation and must not pay for its badge counts.
    items = functools.cache(lambda: resolved_navigation(request.path, request.user, request))
    return {
        **base,
        "main_navigation": items,
        "main_navigation_html": functools.cache(lambda: navigation_html(items())),
        # Localized in the user's language here, so announce.js needs no catalog of its own.
        "announce_catalog": lambda: _announce_catalog(get_language())[0],
        "announce_catalog_script": lambda: _announce_catalog(get_language())[1],
    }


@functools.cache
def _announce_catalog(language: str | None) -> tuple[dict[str, str], SafeString]:
    """The announce catalog in `language` and its <script> for the page (the same in every page
    of a language: built once per process and language)."""
    catalog = {key: str(text) for key, text in plugins.announce_catalog().items()}
    return catalog, json_script(catalog, "announce-catalog")
