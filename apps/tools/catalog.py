"""What a caller may see of the registry: filtered by surface, install state, allowlist and API-key scopes.

Advertisement filtering is a prompt-quality guard, not the security boundary: the dispatcher
checks every call again before it runs.
"""

from __future__ import annotations

import re

from apps.tools import approval, gating, registry
from apps.tools.context import ToolContext
from apps.tools.registry import Tool, normalize_family


def visible_tools(ctx: ToolContext) -> list[Tool]:
    installed: dict[str, bool] = {}

    def module_ok(t: Tool) -> bool:
        if not t.is_gated:
            return True
        if t.module not in installed:
            installed[t.module] = gating.is_installed(t.module)
        return installed[t.module]

    step = approval.step()  # hides what the agent's policy forbids
    return [
        t
        for t in registry.all_tools()
        if ctx.surface in t.surfaces
        and (ctx.allowed_tools is None or t.name in ctx.allowed_tools)
        and t.reachable_with(ctx.scopes)
        and module_ok(t)
        and (step is None or step.offered(t, ctx))
    ]


def describe(t: Tool) -> dict:
    return {
        "name": t.name,
        "description": t.description,
        "family": t.family,
        "families": list(t.families),
        "toolbox": t.family,
        "module": t.module,
        "read_only": t.read_only,
        "reads_foreign_content": t.reads_foreign_content,
        "operations": list(t.operations),
        "surfaces": sorted(t.surfaces),
        "parameters": t.schema,
        "output_schema": t.output_schema,
    }


def summarize(t: Tool) -> dict:
    return {"name": t.name, "family": t.family, "summary": t.summary, "read_only": t.read_only}


_WORD = re.compile(r"[\wäöüß]+", re.IGNORECASE)


def search(ctx: ToolContext, query: str, limit: int = 20) -> list[dict]:
    """Rank visible tools by how many query words hit their name, family and description.
    A query naming a family (or one of its aliases) returns the whole family first."""
    words = [w.lower() for w in _WORD.findall(query)]
    family = normalize_family(query)
    scored = []
    for t in visible_tools(ctx):
        score = 0.0
        if family in t.families:
            score += 10
        name, desc = t.name.lower(), t.description.lower()
        for w in words:
            w_family = normalize_family(w)
            if w_family in t.families:
                score += 5
            if w in name:
                score += 3
            if w in desc:
                score += 1
        if score:
            scored.append((-score, t.name, t))
    scored.sort()
    return [summarize(t) for _, _, t in scored[:limit]]


def expand(ctx: ToolContext, family: str) -> list[dict]:
    wanted = normalize_family(family)
    return [describe(t) for t in visible_tools(ctx) if wanted in t.families]


def families(ctx: ToolContext) -> list[str]:
    return sorted({f for t in visible_tools(ctx) for f in t.families})
