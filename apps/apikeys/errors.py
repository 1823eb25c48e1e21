"""Domain errors of API keys and device tokens: this app's table of codes.

The codes keep their `apikeys_…` / `api_key_…` / `device_token_…` spelling (clients and the
command's users see them); the classes derive from the shared bases of `apps.core.errors`, so the
HTTP status of each comes from one place. Pages, the admin, the management command and the DRF
authenticators catch `ApiKeyError` and show `message`; messages never contain key material.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import errors as base


class ApiKeyError(base.DomainError):
    """Base of this app's errors (declares no code of its own): raised without a message, an
    error says its class's `default_message`."""

    default_message = _("The request could not be completed.")

    def __init__(self, message: str | None = None, *, details: Any = None) -> None:
        super().__init__(str(message if message is not None else self.default_message), details=details)


# --- management ------------------------------------------------------------------------------
class NotAllowed(ApiKeyError, base.Forbidden):
    """Only administrators manage API keys (and sign other members' devices out)."""

    code = "apikeys_forbidden"
    default_message = _("Only administrators can manage API keys.")


class InvalidScope(ApiKeyError, base.InvalidInput):
    """An unknown scope, or none; `details.unknown_scopes` lists the unknown ones."""

    code = "apikeys_invalid_scope"
    default_message = _("Unknown scope.")

    def __init__(self, unknown: list[str] | None = None, message: str | None = None) -> None:
        self.unknown = list(unknown or [])
        if message is None and self.unknown:
            message = _("Unknown scope: %(scopes)s.") % {"scopes": ", ".join(self.unknown)}
        super().__init__(message, details={"unknown_scopes": self.unknown})


class InvalidInput(ApiKeyError, base.InvalidInput):
    """A key's or device's name, or a key's expiry, is out of range."""

    code = "apikeys_invalid_input"
    default_message = _("Please check your input.")


class KeyNotFound(ApiKeyError, base.NotFound):
    code = "apikeys_not_found"
    default_message = _("No such API key.")


class DeviceTokenNotFound(ApiKeyError, base.NotFound):
    """Missing, or another member's: both answer alike so token ids cannot be probed."""

    code = "device_token_not_found"
    default_message = _("No such device token.")


class InvalidCredentials(ApiKeyError, base.InvalidInput):
    """Password login failed; one message for unknown e-mail, wrong password and inactive user."""

    code = "invalid_credentials"
    default_message = _("Unable to sign in with the provided credentials.")


# --- authentication --------------------------------------------------------------------------
class CredentialError(ApiKeyError):
    """A presented key or token was refused (401). Only a caller holding the correct secret learns
    *why* (revoked, expired, owner inactive); everyone else gets the generic `invalid`."""

    http_status = 401


class InvalidApiKey(CredentialError):
    code = "api_key_invalid"
    default_message = _("Invalid API key.")


class RevokedApiKey(CredentialError):
    code = "api_key_revoked"
    default_message = _("This API key has been revoked.")


class ExpiredApiKey(CredentialError):
    code = "api_key_expired"
    default_message = _("This API key has expired.")


class InactiveKeyOwner(CredentialError):
    code = "api_key_owner_inactive"
    default_message = _("The account this API key belongs to is deactivated.")


class InvalidDeviceToken(CredentialError):
    code = "device_token_invalid"
    default_message = _("Invalid device token.")


class RevokedDeviceToken(CredentialError):
    code = "device_token_revoked"
    default_message = _("This device token has been revoked.")


class InactiveTokenOwner(CredentialError):
    code = "device_token_owner_inactive"
    default_message = _("The account this device token belongs to is deactivated.")


# Codes DRF itself answers with for this app's checks (no exception class here), for the catalog.
DRF_CODES = {
    "throttled": (
        "apikeys",
        "Too many requests with one API key within the rate's window (`CLAPILOT_API_KEY_RATE`) or too "
        "many failed logins (`CLAPILOT_LOGIN_RATE`): 429, wait `Retry-After` seconds.",
    ),
    # `permissions.ApiKeyScopes` (403)
    "api_key_endpoint_not_allowed": ("apikeys", "The endpoint cannot be used with an API key (403)."),
    "api_key_scope_missing": ("apikeys", "The API key lacks a scope the endpoint requires (403)."),
    "api_key_creator_not_admin": (
        "apikeys",
        "The scope needs the key's creator to be an administrator, and they no longer are (403).",
    ),
}
