"""Per request: the acting `Principal` (`request.principal`) and the signed-in user's language and
time zone."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.functional import SimpleLazyObject

from apps.accounts.principal import Principal
from apps.core import timezones


def request_time_zone(request, user=None) -> zoneinfo.ZoneInfo | None:
    """`X-User-Timezone` (sent by mobile and voice clients) wins over the profile setting (of
    `user`, by default the request's)."""
    candidates = [request.headers.get("X-User-Timezone", "")]
    user = user if user is not None else getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        candidates.append(user.time_zone)
    for name in candidates:
        tz = timezones.zone(name)  # None for an unknown or malformed name (never raises)
        if tz is not None:
            return tz
    return None


def activate_preferences(request, user=None) -> None:
    """Activate the language and time zone of `user` (by default the request's) for the rest of
    the request. The API authentication classes call it again for the user a key or device token
    acts as: DRF authenticates after this app's middleware has run."""
    user = user if user is not None else request.user
    if user.is_authenticated and user.language:
        translation.activate(user.language)
        request.LANGUAGE_CODE = user.language
    tz = request_time_zone(request, user)
    if tz is not None:
        timezone.activate(tz)
    else:
        timezone.deactivate()


class _Preparing:
    """A middleware that prepares the request (its `prepare` function) before the view answers it."""

    prepare: Callable[[HttpRequest], None]

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        self.prepare(request)
        return self.get_response(request)


class UserPreferencesMiddleware(_Preparing):
    prepare = staticmethod(activate_preferences)


def principal_of(request) -> Principal | None:
    """The principal of an authenticated request (an API key or device token acts as its user);
    None for anonymous requests."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    return Principal.for_user(user)


def attach_principal(request) -> None:
    """(Re)bind `request.principal`, resolved on first use. The API authentication classes call
    this again once DRF has authenticated the request."""
    request.principal = SimpleLazyObject(lambda: principal_of(request))


class PrincipalMiddleware(_Preparing):
    prepare = staticmethod(attach_principal)
