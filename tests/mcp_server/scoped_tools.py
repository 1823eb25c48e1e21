"""A tool that a narrow API-key scope reaches without `tools:execute` (as memory:read reaches memory_search)."""

from __future__ import annotations

from pydantic import Field

from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool


class ScopedArgs(Args):
    text: str = Field(max_length=50)


@tool(
    name="testkit_scoped_read",
    family="testkit",
    read_only=True,
    api_scopes=("testkit:read",),
    description="Echo text; reachable with testkit:read. For tests.",
)
def scoped_read(ctx: ToolContext, args: ScopedArgs) -> dict:
    return {"text": args.text}
