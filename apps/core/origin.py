"""Where a call came from, built once by the surface that received it and passed to the services
that record provenance (a task's `source_type`, a memory's source, an audit line).

    origin = Origin.of_tool(ctx)          # an agent tool call (native run, live voice, API tool call)
    origin = Origin.of_request(request)   # a REST request (`surface="api"`) …
    origin = Origin.of_request(request, surface="page")   # … or a page

A service takes `origin: Origin = INTERNAL` (jobs, the demo loader, other apps' services) and
decides from it alone; no adapter keeps its own `_source_type` / `source_of` / `default_scope`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

Surface = Literal["page", "api", "agent", "live", "internal"]

# The tool context's surface names (apps.tools.context.ToolContext.surface) → an origin's.
_TOOL_SURFACES: dict[str, Surface] = {"native": "agent", "live": "live", "api": "api"}


class ToolCaller(Protocol):
    """What an origin reads from a tool call's context (`apps.tools.context.ToolContext`)."""

    @property
    def surface(self) -> str: ...
    @property
    def run_id(self) -> str | None: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def api_key(self) -> str | None: ...
    @property
    def specialist_id(self) -> str | None: ...


@dataclass(frozen=True)
class Origin:
    """The surface a call came in on, and what identifies it there: the agent run (and its chat
    session), the API key's public prefix (never the secret), the specialist the agent acts as."""

    surface: Surface = "internal"
    run_id: str | None = None
    session_id: str | None = None
    api_key_prefix: str | None = None
    agent_id: str | None = None
    via_tool: bool = False  # through the copilot's tool contract (a run, live voice, tools/execute)

    @classmethod
    def of_tool(cls, ctx: ToolCaller) -> Origin:
        return cls(
            surface=_TOOL_SURFACES.get(ctx.surface, "agent"),
            run_id=ctx.run_id,
            session_id=ctx.session_id,
            api_key_prefix=ctx.api_key,
            agent_id=ctx.specialist_id,
            via_tool=True,
        )

    @classmethod
    def of_request(cls, request: Any, surface: Surface = "api") -> Origin:
        """A REST request or a page; the key prefix when an API key authenticated it."""
        key = getattr(request, "auth", None)
        is_api_key = getattr(key, "scopes", None) is not None  # device tokens have no scopes
        prefix = getattr(key, "prefix", None) if is_api_key else None
        return cls(surface=surface, api_key_prefix=prefix if isinstance(prefix, str) else None)

    @property
    def by_agent(self) -> bool:
        """The copilot made the call (in a run or a live conversation)."""
        return self.surface in ("agent", "live")

    def run_snapshot(self) -> dict[str, str | None] | None:
        """The run that made the call, for a record's provenance; None off-run."""
        return {"run_id": self.run_id, "session_id": self.session_id} if self.run_id else None


INTERNAL = Origin()
