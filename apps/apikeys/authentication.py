"""DRF authenticators for machine credentials.

* `ApiKeyAuthentication`: `Authorization: Bearer clp_….…` → `(key.created_by, ApiKey)`.
* `DeviceTokenAuthentication`: `Authorization: Token cld_….…` → `(token.user, DeviceToken)`.

Each one only looks at its own keyword and returns None otherwise, so the next authenticator can
try. A request that does use the keyword but presents a bad credential is refused with 401 (never
silently treated as anonymous). Refusal messages come from `errors` and never echo the header.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from apps.accounts.middleware import activate_preferences, attach_principal
from apps.apikeys import errors, services


def _credential(request: Request, keyword: str) -> str | None:
    """The credential after `keyword`, None when another scheme (or none) is used."""
    header = get_authorization_header(request).split()
    if not header or header[0].lower() != keyword.lower().encode():
        return None
    if len(header) != 2:
        raise exceptions.AuthenticationFailed(
            _("Invalid Authorization header. Expected: %(keyword)s <credential>.") % {"keyword": keyword},
            code="malformed_authorization_header",
        )
    try:
        return header[1].decode("ascii")
    except UnicodeError:
        raise exceptions.AuthenticationFailed(
            _("Invalid Authorization header. Expected: %(keyword)s <credential>.") % {"keyword": keyword},
            code="malformed_authorization_header",
        ) from None


def _acting_as(request: Request, user) -> None:
    """The request now acts as `user` (a key's creator, a token's owner): its principal is
    resolved again, and the user's language and time zone apply (error messages, dates), as the
    accounts middleware does for session requests before DRF has authenticated anyone."""
    attach_principal(request._request)
    activate_preferences(request._request, user)


class _CredentialAuthentication(BaseAuthentication):
    """One keyword's credential. Each subclass names its keyword, `check` (raw credential → the
    row, or `CredentialError`) and `user_of` (the row → who the request then acts as)."""

    keyword: str
    check: Callable[[str], Any]
    user_of: Callable[[Any], Any]

    def authenticate(self, request: Request) -> tuple[object, object] | None:
        raw = _credential(request, self.keyword)
        if raw is None:
            return None
        try:
            credential = self.check(raw)
        except errors.CredentialError as exc:
            raise exceptions.AuthenticationFailed(exc.message, code=exc.code) from None
        user = self.user_of(credential)
        _acting_as(request, user)
        return user, credential

    def authenticate_header(self, request: Request) -> str:
        return f'{self.keyword} realm="api"'


class ApiKeyAuthentication(_CredentialAuthentication):
    """Instance API keys; the request acts as the key's creator. `request.auth` is the ApiKey, so
    `ApiKeyScopes` can check what the key was granted."""

    keyword = "Bearer"
    check = staticmethod(services.authenticate_api_key)
    user_of = staticmethod(attrgetter("created_by"))


class DeviceTokenAuthentication(_CredentialAuthentication):
    """A member's own app (mobile/desktop) signed in with `POST /api/v1/auth/token`."""

    keyword = "Token"
    check = staticmethod(services.authenticate_device_token)
    user_of = staticmethod(attrgetter("user"))
