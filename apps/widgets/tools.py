"""Agent tools of widgets: `widgets_*` and the older `mini_apps_*` names (seed: both stay
supported). Each handler is registered under both names, one implementation; the arguments are
the operations' input models (`contracts.py`, in their strict-mode form).

Widgets belong to a person: a caller without one gets the dispatcher's envelope failure
`CLAPILOT_NO_USER_CONTEXT`, as every tool that needs a signed-in user does.
"""

from __future__ import annotations

import functools

from pydantic import BaseModel

from apps.tools.context import ToolContext
from apps.tools.errors import ForwardedToolFailure
from apps.tools.registry import DEFAULT_SURFACES, WITH_LIVE, tool
from apps.widgets import contracts as c
from apps.widgets import services
from apps.widgets.errors import NoUserContext

NO_USER_CONTEXT = "CLAPILOT_NO_USER_CONTEXT"


def widget_tools(action: str, *, read_only: bool, output: type[BaseModel]):
    """Register one handler as `widgets_<action>` and `mini_apps_<action>`, described by its
    docstring, answering `output`."""

    def decorate(handler):
        @functools.wraps(handler)
        def run(ctx: ToolContext, args):
            try:
                return handler(ctx, args)
            except NoUserContext as exc:
                raise ForwardedToolFailure(exc.message, code=NO_USER_CONTEXT) from None

        for family, other in (("widgets", "mini_apps"), ("mini_apps", "widgets")):
            tool(
                name=f"{family}_{action}",
                family=family,
                also_in=(other,),
                read_only=read_only,
                surfaces=WITH_LIVE if read_only else DEFAULT_SURFACES,
                output=output,
            )(run)
        return run

    return decorate


@widget_tools("list", read_only=True, output=c.WidgetSummaryList)
def list_widgets(ctx: ToolContext, args: c.WidgetFilter) -> dict:
    """List your installed Widgets (dashboard cards), optionally only those on the dashboard. Use
    widgets_get for a widget's data."""
    widgets = services.list_widgets(ctx.principal, args)
    return {"widgets": [c.WidgetSummaryOut.record(w) for w in widgets], "count": len(widgets)}


@widget_tools("get", read_only=True, output=c.WidgetResult)
def get_widget(ctx: ToolContext, args: c.WidgetRef) -> dict:
    """Read one of your Widgets with its latest data, by id or slug."""
    return {"widget": c.WidgetOut.record(services.get_widget(ctx.principal, **args.ref()))}


@widget_tools("create", read_only=False, output=c.WidgetResult)
def create_widget(ctx: ToolContext, args: c.WidgetCreateStrict) -> dict:
    """Create a Widget on your dashboard. Types: stats, list, table, notice, sections. Without a
    widget_definition the type is inferred from latest_data."""
    return {"widget": c.WidgetOut.record(services.create_widget(ctx.principal, args))}


@widget_tools("update", read_only=False, output=c.WidgetResult)
def update_widget(ctx: ToolContext, args: c.WidgetUpdateByRef) -> dict:
    """Change a Widget's name, description, widget_definition, dashboard visibility or position;
    fields you leave out stay as they are."""
    return {"widget": c.WidgetOut.record(services.update_widget(ctx.principal, args, **args.ref()))}


@widget_tools("update_data", read_only=False, output=c.WidgetResult)
def update_widget_data(ctx: ToolContext, args: c.WidgetDataUpdateByRef) -> dict:
    """Replace a Widget's latest data. A layout inferred from data upgrades itself when richer data
    arrives (e.g. a list becomes a table)."""
    return {"widget": c.WidgetOut.record(services.update_data(ctx.principal, args, **args.ref()))}
