"""Device tokens and API keys on WebSockets (`core.websocket_credentials`, apps.core.realtime): the
same checks as the REST authenticators. A device token acts as its member; an API key as its
creator, and only on a socket whose consumer declares the scopes the key must carry."""

from __future__ import annotations

from typing import Any

from apps.apikeys import errors, services
from apps.apikeys.models import ADMIN_SCOPES
from apps.core.realtime import CredentialRefused


def credential_user(scheme: str, credential: str, api_key_scopes: tuple[str, ...]) -> Any:
    try:
        if scheme.lower() == "token":
            return services.authenticate_device_token(credential).user
        if scheme.lower() == "bearer":
            key = services.authenticate_api_key(credential)
            user = key.created_by
            if not api_key_scopes or key.missing_scopes(api_key_scopes):
                raise CredentialRefused("api_key_endpoint_not_allowed")
            if any(scope in ADMIN_SCOPES for scope in api_key_scopes) and not user.is_admin:
                raise CredentialRefused("api_key_creator_not_admin")
            return user
    except errors.CredentialError as exc:
        raise CredentialRefused(exc.code) from None
    return None
