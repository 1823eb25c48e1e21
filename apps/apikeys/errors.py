"""Domain errors of API keys and device tokens, each with a stable `code`.

Pages, the admin, the management command and the DRF authenticators all catch these and show
`message`; clients and tests branch on `code`. Messages never contain key material.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core.errors import DomainError


class ApiKeyError(DomainError):
    """Base class: `code` is stable, `message` is human-readable and safe to show; the API's
    exception handler turns it into `{"code", "message", "details"}` with `http_status`."""

    code = "apikeys_error"
    http_status = 400
    default_message = _("The request could not be completed.")

    def __init__(self, message: str | None = None, *, details: Any = None) -> None:
        super().__init__(str(message if message is not None else self.default_message), details=details)


# --- management ------------------------------------------------------------------------------
class NotAllowed(ApiKeyError):
    code = "apikeys_forbidden"
    http_status = 403
    default_message = _("Only administrators can manage API keys.")


class InvalidScope(ApiKeyError):
    code = "apikeys_invalid_scope"
    default_message = _("Unknown scope.")

    def __init__(self, unknown: list[str] | None = None, message: str | None = None) -> None:
        self.unknown = list(unknown or [])
        if message is None and self.unknown:
            message = _("Unknown scope: %(scopes)s.") % {"scopes": ", ".join(self.unknown)}
        super().__init__(message, details={"unknown_scopes": self.unknown})


class InvalidInput(ApiKeyError):
    code = "apikeys_invalid_input"
    default_message = _("Please check your input.")


class KeyNotFound(ApiKeyError):
    code = "apikeys_not_found"
    http_status = 404
    default_message = _("No such API key.")


class DeviceTokenNotFound(ApiKeyError):
    code = "device_token_not_found"
    http_status = 404
    default_message = _("No such device token.")


class InvalidCredentials(ApiKeyError):
    """Password login failed; one message for unknown e-mail, wrong password and inactive user."""

    code = "invalid_credentials"
    default_message = _("Unable to sign in with the provided credentials.")


# --- authentication --------------------------------------------------------------------------
class CredentialError(ApiKeyError):
    """A presented key or token was refused. Only a caller holding the correct secret learns
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
