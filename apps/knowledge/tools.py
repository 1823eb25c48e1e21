"""Agent tools of unified retrieval (family `context`, core: never install-gated). The arguments
are the operations' input models (`contracts.py`)."""

from __future__ import annotations

from apps.knowledge import context
from apps.knowledge import contracts as c
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, tool


@tool(
    name="context_search",
    output=c.ContextSearchOut,
    surfaces=WITH_LIVE,
    reads_foreign_content=True,
    read_only=True,
)
def context_search(ctx: ToolContext, args: c.ContextSearch) -> dict:
    """Search the office's knowledge (documents today; wiki, notes and memory as they are connected) by
    meaning and by words at once. Returns source-qualified ids such as document:12 with a snippet; read
    one with context_get."""
    return context.context_search(
        ctx.principal,
        args.query,
        sources=args.sources,
        scope=args.scope,
        limit=args.limit,
        specialist=ctx.specialist_id,
    )


@tool(
    name="context_get",
    output=c.ContextItemOut,
    surfaces=WITH_LIVE,
    reads_foreign_content=True,
    read_only=True,
)
def context_get(ctx: ToolContext, args: c.ContextGet) -> dict:
    """Read one result of context_search by its id (e.g. document:12): title, path, sections and the text,
    paged with offset/next_offset."""
    return context.context_get(
        ctx.principal, args.id, offset=args.offset, max_chars=args.max_chars, specialist=ctx.specialist_id
    )
