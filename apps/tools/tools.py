"""Core tools: the catalog meta-tools that let an agent start small and find the rest, and the
caller's context. Family `core` is never install-gated."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.core import jsontext, timezones
from apps.tools import catalog, gating, registry
from apps.tools import contracts as c
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.errors import ForwardedToolFailure, InvalidArguments, UnknownFamily
from apps.tools.registry import WITH_LIVE, normalize_family, tool


class CatalogSearchArgs(Args):
    query: str = Field(
        min_length=1, max_length=200, description="Words describing the capability, or a family name."
    )
    limit: int = Field(default=20, ge=1, le=50, description="Maximum number of tools to return.")


@tool(
    name="tool_catalog_search",
    output=c.CatalogSearchOut,
    read_only=True,
    description="""Find tools that are not in your current toolbox. Returns names with one-line summaries;
    use tool_catalog_expand for a family's full schemas, then tool_execute to call one.""",
)
def tool_catalog_search(ctx: ToolContext, args: CatalogSearchArgs) -> dict:
    return {
        "query": args.query,
        "family": normalize_family(args.query),
        "results": catalog.search(ctx, args.query, args.limit),
    }


class CatalogExpandArgs(Args):
    family: str = Field(
        min_length=1, max_length=64, description="Tool family, e.g. aufgaben or social_media."
    )


@tool(name="tool_catalog_expand", output=c.CatalogExpandOut, read_only=True)
def tool_catalog_expand(ctx: ToolContext, args: CatalogExpandArgs) -> dict:
    """Return the full parameter schemas of every tool in one family."""
    tools = catalog.expand(ctx, args.family)
    if not tools:
        raise UnknownFamily(
            _("There is no tool family “%(family)s”.") % {"family": args.family},
            details={"families": catalog.families(ctx)},
        )
    return {"family": normalize_family(args.family), "tools": tools}


class ToolExecuteArgs(Args):
    tool: str = Field(min_length=1, max_length=100, description="Exact tool name from the catalog.")
    arguments: str = Field(
        default="{}",
        max_length=100_000,
        description="The tool's arguments as a JSON object encoded in a string.",
    )


# The inner dispatch decides about the tool it calls (and opens its own transaction, so a staged
# inner call survives the forwarded failure).
@tool(
    name="tool_execute",
    output=c.ForwardedOutput,
    read_only=False,
    operation="execute",
    default="run",
    atomic=False,
)
def tool_execute(ctx: ToolContext, args: ToolExecuteArgs):
    """Call a tool found with tool_catalog_search by name, with its arguments as a JSON string."""
    from dataclasses import replace

    from apps.tools.dispatcher import dispatch
    from apps.tools.results import ToolOutput

    if args.tool == "tool_execute":
        raise InvalidArguments(_("tool_execute cannot call itself."))
    try:
        arguments = jsontext.loads(args.arguments or "{}")
    except ValueError as exc:
        raise InvalidArguments(_("“arguments” is not valid JSON.")) from exc
    inner = dispatch(args.tool, arguments, replace(ctx, approved=False) if ctx.approved else ctx)
    if not inner.ok:
        raise ForwardedToolFailure(inner.message, code=inner.code, details=inner.output)
    return ToolOutput(
        output=inner.output,
        ui_actions=inner.ui_actions,
        trigger_reload=inner.trigger_reload,
        refresh_topic=inner.refresh_topic,
    )


class NoArgs(Args):
    pass


def _now(ctx: ToolContext):
    tz = timezones.zone(ctx.time_zone) or ctx.principal.time_zone
    return timezone.now().astimezone(tz), tz


def known_modules() -> list[str]:
    return sorted({t.module for t in registry.all_tools() if t.module} | gating.MINIMAL_MODULES)


@tool(name="clapilot_context_status", output=c.ContextStatusOut, surfaces=WITH_LIVE, read_only=True)
def clapilot_context_status(ctx: ToolContext, args: NoArgs) -> dict:
    """Who you act for: user, language, time zone, current time and which modules are installed."""
    p = ctx.principal
    now, tz = _now(ctx)
    person = p.user or p.acting_user
    return {
        "user": {"id": person.pk, "email": person.email, "name": person.get_full_name()} if person else None,
        "service_principal": {"id": p.service.pk, "name": p.service.name, "kind": p.service.kind}
        if p.service
        else None,
        "language": p.language,
        "time_zone": str(tz),
        "now": now.isoformat(),
        "surface": ctx.surface,
        "modules": {slug: gating.is_installed(slug) for slug in known_modules()},
    }


@tool(name="session_status", output=c.SessionStatusOut, surfaces=WITH_LIVE, read_only=True)
def session_status(ctx: ToolContext, args: NoArgs) -> dict:
    """State of the current session: run and session ids, surface, time and how many tools you can see."""
    now, tz = _now(ctx)
    return {
        "run_id": ctx.run_id,
        "session_id": ctx.session_id,
        "surface": ctx.surface,
        "acting_as": ctx.principal.audit_label,
        "now": now.isoformat(),
        "time_zone": str(tz),
        "visible_tools": len(catalog.visible_tools(ctx)),
    }
