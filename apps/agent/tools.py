"""Tools of the agent runtime itself (surface `native`): growing the toolbox and the todo list.
Their effects on the run (new tools next round, a `todo` event) are applied by the runtime
from their results; the handlers only validate and answer."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.agent import contracts as c
from apps.tools import catalog
from apps.tools.context import ToolContext
from apps.tools.errors import UnknownFamily
from apps.tools.registry import normalize_family, tool


@tool(
    name="request_toolbox",
    output=c.ToolboxOpened,
    read_only=True,
    label=gettext_lazy("Open a toolbox"),
    surfaces=["native"],
    description="""Activate a further toolbox (tool family) for the rest of this run: its tools can be
    called directly from the next round on. tool_catalog_search shows which toolboxes exist.""",
)
def request_toolbox(ctx: ToolContext, args: c.RequestToolbox) -> dict:
    family = normalize_family(args.toolbox)
    tools = catalog.expand(ctx, family)
    if not tools:
        raise UnknownFamily(
            _("There is no toolbox “%(family)s”.") % {"family": args.toolbox},
            details={"toolboxes": catalog.families(ctx)},
        )
    return {"toolbox": family, "tools": [t["name"] for t in tools]}


@tool(
    name="agent_todo_update",
    output=c.TodoListOut,
    read_only=True,
    label=gettext_lazy("Update the plan"),
    surfaces=["native"],
    description="""Show the user your plan for a multi-step request as a todo list. Send the whole list
    each time; mark items in_progress and done as you go.""",
)
def agent_todo_update(ctx: ToolContext, args: c.TodoUpdate) -> dict:
    return {"items": [item.model_dump() for item in args.items]}
