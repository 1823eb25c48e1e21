"""The typed contract of the `/api/v1/auth/…` endpoints: what a member's app sends to sign in and
what it gets back, and the list and revocation of API keys. API keys themselves are an admin
control-plane credential, made on the Developer page, in the admin and with `manage.py apikey`,
never over the API."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import Field, StringConstraints

from apps.apikeys.models import ApiKey, DeviceToken
from apps.apikeys.services import MAX_EXPIRY_DAYS, MAX_NAME_LENGTH
from apps.core.contracts import Input, Output, PageInput, paged
from apps.core.records import attrs

# A password is taken exactly as typed: no trimming.
Password = Annotated[str, StringConstraints(strip_whitespace=False)]


# --- input ------------------------------------------------------------------------------------
class ApiKeyCreate(Input):
    """An admin mints a key (Developer page, admin); the service checks the same rules again and
    names unknown scopes (`apikeys_invalid_scope`)."""

    name: str = Field(min_length=1, max_length=MAX_NAME_LENGTH, description="What the key is for.")
    scopes: list[str] = Field(min_length=1, description="What the key may be used for.")
    expires_in_days: int | None = Field(
        default=None, ge=1, le=MAX_EXPIRY_DAYS, description="Empty: the key does not expire."
    )


class ObtainToken(Input):
    email: str = Field(
        min_length=1, max_length=254, description="The e-mail address the member signs in with."
    )
    password: Password = Field(
        min_length=1, max_length=1024, json_schema_extra={"format": "password", "writeOnly": True}
    )
    device_name: str = Field(
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        description="Shown in the member's device list, e.g. “Anna's iPhone”.",
    )


class DeviceTokenFilter(PageInput):
    """The caller's own active device tokens, newest first."""


class ApiKeyFilter(PageInput):
    """The API keys the caller may see, newest first (revoked and expired ones included)."""


# --- output -----------------------------------------------------------------------------------
class IssuedToken(Output):
    token: str = Field(description="Send as `Authorization: Token <token>`. Shown only once.")
    id: int
    device_name: str


class DeviceTokenOut(Output):
    id: int
    device_name: str
    prefix: str = Field(description="The token's public prefix (never the secret).")
    created_at: dt.datetime
    last_used_at: dt.datetime | None
    current: bool = Field(description="True for the token making this request.")

    @classmethod
    def of(cls, token: DeviceToken, *, auth: Any = None) -> DeviceTokenOut:
        return cls(
            id=token.pk,
            **attrs(token, "device_name", "prefix", "created_at", "last_used_at"),
            current=isinstance(auth, DeviceToken) and auth.pk == token.pk,
        )


class ApiKeyOut(Output):
    id: int
    name: str
    prefix: str = Field(description="The key's public prefix (never the secret).")
    scopes: list[str]
    created_by_id: int = Field(description="The creator, whose current rights the key has.")
    created_at: dt.datetime
    expires_at: dt.datetime | None
    last_used_at: dt.datetime | None
    revoked_at: dt.datetime | None
    status: str = Field(description="`active`, `expired` or `revoked`.")

    @classmethod
    def of(cls, key: ApiKey) -> ApiKeyOut:
        return cls(
            id=key.pk,
            **attrs(key, "name", "prefix"),
            scopes=list(key.scopes),
            **attrs(key, "created_by_id", "created_at", "expires_at", "last_used_at", "revoked_at", "status"),
        )


ApiKeyPage = paged(ApiKeyOut, "keys", name="ApiKeyPage")

# `results` is the key the device list has always used (clients read it).
DeviceTokenPage = paged(DeviceTokenOut, "results", name="DeviceTokenPage")
