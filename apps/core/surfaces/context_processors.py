import functools

from django.conf import settings
from django.utils import timezone

from apps.core import plugins
from apps.core.surfaces.navigation import resolved_navigation


def navigation(request) -> dict:
    base = {"LANGUAGE_CHOICES": settings.LANGUAGES, "today": timezone.localdate()}
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return base
    return {
        **base,
        # Resolved when a template draws it (once): partials rendered with the request (chat
        # bubbles, cards) never draw the navigation and must not pay for its badge counts.
        "main_navigation": functools.cache(lambda: resolved_navigation(request.path, request.user, request)),
        # Localized in the user's language here, so announce.js needs no catalog of its own.
        "announce_catalog": {key: str(text) for key, text in plugins.announce_catalog().items()},
    }
