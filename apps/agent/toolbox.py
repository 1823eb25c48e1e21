"""The run's toolbox: it starts small (the core families) and grows within the run when the model
activates a toolbox (`request_toolbox`) or calls a catalog tool through `tool_execute`."""

from __future__ import annotations

from apps.tools import catalog, registry
from apps.tools.context import ToolContext
from apps.tools.registry import Tool


class Toolbox:
    def __init__(self, families: frozenset[str] | None = None) -> None:
        self.families = set(registry.start_families() if families is None else families)
        self.extra: set[str] = set()
        self._functions: list[dict] | None = None  # cached until the toolbox grows

    def tools(self, ctx: ToolContext) -> list[Tool]:
        return [
            t for t in catalog.visible_tools(ctx) if self.families & set(t.families) or t.name in self.extra
        ]

    def functions(self, ctx: ToolContext) -> list[dict]:
        if self._functions is None:
            self._functions = [t.openai_function() for t in self.tools(ctx)]
        return self._functions

    def learn(self, name: str, arguments: object, output: object) -> bool:
        """Grow from one successful call; True when the toolbox changed."""
        before = (len(self.families), len(self.extra))
        if name == "request_toolbox" and isinstance(output, dict) and output.get("toolbox"):
            self.families.add(str(output["toolbox"]))
        elif name == "tool_execute" and isinstance(arguments, dict) and arguments.get("tool"):
            self.extra.add(str(arguments["tool"]))
        changed = before != (len(self.families), len(self.extra))
        if changed:
            self._functions = None
        return changed
