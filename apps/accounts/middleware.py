"""Activates the signed-in user's language and time zone for each request."""

from __future__ import annotations

import zoneinfo

from django.utils import timezone, translation


def request_time_zone(request) -> zoneinfo.ZoneInfo | None:
    """`X-User-Timezone` (sent by mobile and voice clients) wins over the profile setting."""
    candidates = [request.headers.get("X-User-Timezone", "")]
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        candidates.append(user.time_zone)
    for name in candidates:
        if not name:
            continue
        try:
            return zoneinfo.ZoneInfo(name.strip())
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            continue
    return None


class UserPreferencesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        if user.is_authenticated and user.language:
            translation.activate(user.language)
            request.LANGUAGE_CODE = user.language
        tz = request_time_zone(request)
        if tz is not None:
            timezone.activate(tz)
        else:
            timezone.deactivate()
        return self.get_response(request)
