"""Who is calling the MCP server, and may they: Host and Origin (DNS rebinding), the API key from the
`Authorization: Bearer` header, and the key's rate limit. Synchronous (database) code; the ASGI
gate in `http.py` runs it in a thread.

The key acts as its creator with the creator's rights of the moment (as on /api/v1/): a scope
in `ADMIN_SCOPES` (tools:execute) counts only while the creator is an administrator. A refused
key never says why; nothing here returns or logs the key itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from django.conf import settings
from django.http.request import split_domain_port, validate_host

from apps.accounts.principal import Principal
from apps.apikeys import errors, services
from apps.apikeys.models import ADMIN_SCOPES
from apps.apikeys.throttling import ApiKeyRateThrottle
from apps.tools.context import ToolContext


@dataclass(frozen=True)
class Caller:
    """An authenticated API key: its creator and the scopes that count right now."""

    key_id: int
    key_prefix: str  # public: the key's name in logs, the admin and a memory's source
    user: object  # the key's creator (accounts.User)
    scopes: frozenset[str]
    retry_after: int | None = None  # set when the key has used up its rate: answer 429

    def tool_context(self, time_zone: str | None = None) -> ToolContext:
        """The dispatcher's context, as /api/v1/tools/execute builds it for the same key."""
        return ToolContext(
            principal=Principal.for_user(self.user),
            surface="api",
            scopes=self.scopes,
            api_key=self.key_prefix,
            time_zone=time_zone,
        )


def host_allowed(host: str | None) -> bool:
    """The Host header names this server (ALLOWED_HOSTS, with Django's wildcards and ports)."""
    domain, _port = split_domain_port(host or "")
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:  # what Django's own host check allows then
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)


def origin_allowed(origin: str | None) -> bool:
    """No Origin (a client outside a browser), or one listed in CLAPILOT_MCP_ALLOWED_ORIGINS."""
    if origin is None:
        return True
    listed = {o.strip().rstrip("/").lower() for o in settings.CLAPILOT_MCP_ALLOWED_ORIGINS}
    return origin.strip().rstrip("/").lower() in listed


def _bearer(header: str | None) -> str | None:
    scheme, _, credential = (header or "").strip().partition(" ")
    if scheme.lower() != "bearer" or not credential.strip() or " " in credential.strip():
        return None
    return credential.strip()


def authenticate(authorization: str | None) -> Caller | None:
    """The caller presenting `Authorization: Bearer <api key>`, None for anything else (no header,
    another scheme, an unknown, wrong, revoked or expired key, a deactivated creator)."""
    raw = _bearer(authorization)
    if raw is None:
        return None
    try:
        key = services.authenticate_api_key(raw)
    except errors.CredentialError:
        return None
    creator = key.created_by
    scopes = frozenset(s for s in key.scopes if s not in ADMIN_SCOPES or creator.is_admin)
    throttle = ApiKeyRateThrottle()  # the same per-key window as the REST API
    allowed = throttle.allow_request(SimpleNamespace(auth=key), None)
    return Caller(
        key_id=key.pk,
        key_prefix=key.prefix,
        user=creator,
        scopes=scopes,
        retry_after=None if allowed else throttle.wait(),
    )
