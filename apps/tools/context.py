"""Everything a tool call knows about its caller, resolved once at the surface."""

from __future__ import annotations

from dataclasses import dataclass

from apps.accounts.principal import Principal


@dataclass(frozen=True)
class ToolContext:
    principal: Principal
    surface: str = "native"  # native | live | api
    run_id: str | None = None
    session_id: str | None = None
    # A specialist's allowlist: None means every tool the principal may use.
    allowed_tools: frozenset[str] | None = None
    # API-key scopes when the call came in with a key; None for sessions and device tokens.
    scopes: frozenset[str] | None = None
    time_zone: str | None = None  # X-User-Timezone, when the client sent one
