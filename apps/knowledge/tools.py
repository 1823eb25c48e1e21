"""Agent tools of unified retrieval (family `context`, core: never install-gated)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from apps.knowledge import context
from apps.knowledge.search import QUERY_MAX
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool

FAMILY = "context"


class ContextSearchArgs(Args):
    query: str = Field(min_length=1, max_length=QUERY_MAX, description="What to look for, in plain words.")
    sources: list[str] | None = Field(
        default=None,
        max_length=10,
        description='Only these sources, e.g. ["document"]; default: all sources.',
    )
    scope: Literal["personal", "shared", "all"] = Field(
        default="all", description="personal: only your own content; shared: office and client content."
    )
    limit: int = Field(default=10, ge=1, le=30, description="How many results at most.")


@tool(
    name="context_search",
    family=FAMILY,
    read_only=True,
    description="Search the office's knowledge (documents today; wiki, notes and memory as they are "
    "connected) by meaning and by words at once. Returns source-qualified ids such as document:12 "
    "with a snippet; read one with context_get.",
)
def context_search(ctx: ToolContext, args: ContextSearchArgs) -> dict:
    return context.context_search(
        ctx.principal, args.query, sources=args.sources, scope=args.scope, limit=args.limit
    )


class ContextGetArgs(Args):
    id: str = Field(
        min_length=3, max_length=140, description="A result id from context_search, e.g. document:12."
    )
    offset: int = Field(default=0, ge=0, description="Start reading at this character (for long texts).")
    max_chars: int = Field(
        default=8000, ge=100, le=context.GET_MAX_CHARS, description="How much text to return."
    )


@tool(
    name="context_get",
    family=FAMILY,
    read_only=True,
    description="Read one result of context_search by its id (e.g. document:12): title, path, "
    "sections and the text, paged with offset/next_offset.",
)
def context_get(ctx: ToolContext, args: ContextGetArgs) -> dict:
    return context.context_get(ctx.principal, args.id, offset=args.offset, max_chars=args.max_chars)
