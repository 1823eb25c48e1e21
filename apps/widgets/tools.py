"""Agent tools of widgets: `widgets_*` and the older `mini_apps_*` names (seed: both stay
supported). Each handler is registered under both names, one implementation.

`latest_data` is free-form JSON, which OpenAI strict mode cannot describe as an open object, so
its schema is a string carrying JSON text; callers on other surfaces may send real JSON too.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema, model_validator

from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.widgets import services
from apps.widgets.definitions import MAX_COLUMNS, MAX_SECTIONS, MAX_STATS, TYPES
from apps.widgets.models import DESCRIPTION_MAX, SLUG_MAX, TITLE_MAX
from apps.widgets.records import widget_record


def _json_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value  # plain text: a notice
    return value


JsonData = Annotated[
    Any,
    BeforeValidator(_json_text),
    WithJsonSchema(
        {
            "type": "string",
            "description": "The data as JSON text: a JSON object of numbers (stats), a list of "
            "strings (list), a list of objects (table), an object of lists (sections); plain "
            "text becomes a notice.",
        }
    ),
]


def widget_tools(action: str, *, read_only: bool, description: str):
    """Register one handler as `widgets_<action>` and `mini_apps_<action>`."""

    def decorate(handler):
        for family, other in (("widgets", "mini_apps"), ("mini_apps", "widgets")):
            tool(
                name=f"{family}_{action}",
                family=family,
                also_in=(other,),
                read_only=read_only,
                description=description,
            )(handler)
        return handler

    return decorate


class _TitleAlias(Args):
    @model_validator(mode="before")
    @classmethod
    def _name_is_title(cls, data: Any) -> Any:
        """The seed's contract calls the title `name`; accept it."""
        if isinstance(data, dict) and "name" in data and data.get("title") is None:
            data = {k: v for k, v in data.items() if k != "name"} | {"title": data["name"]}
        return data


class _Ref(Args):
    widget_id: int | None = Field(default=None, description="The widget's id.")
    slug: str | None = Field(default=None, max_length=SLUG_MAX, description="The widget's slug.")

    @model_validator(mode="after")
    def _one_reference(self):
        if (self.widget_id is None) == (self.slug is None):
            raise ValueError("give either widget_id or slug")
        return self

    def ref(self) -> dict:
        return {"widget_id": self.widget_id, "slug": self.slug}


class StatItemArgs(Args):
    label: str = Field(max_length=80)
    key: str | None = Field(default=None, max_length=120, description="Key of the value in the data.")
    unit: str | None = Field(default=None, max_length=20)
    tone: str | None = Field(default=None, description="neutral, info, success, warning or critical")


class ColumnArgs(Args):
    key: str = Field(max_length=120, description="Key in each data row.")
    label: str | None = Field(default=None, max_length=80)


class SectionArgs(Args):
    key: str = Field(max_length=120, description="Key of this section's data in the data object.")
    title: str | None = Field(default=None, max_length=80)
    type: str = Field(description="stats, list, table or notice")
    items: list[StatItemArgs] | None = Field(default=None, max_length=MAX_STATS)
    columns: list[ColumnArgs] | None = Field(default=None, max_length=MAX_COLUMNS)
    max_items: int | None = None
    tone: str | None = None


class DefinitionArgs(Args):
    type: str = Field(description=f"One of: {', '.join(TYPES)}.")
    items: list[StatItemArgs] | None = Field(
        default=None, max_length=MAX_STATS, description="stats: the figures."
    )
    columns: list[ColumnArgs] | None = Field(
        default=None, max_length=MAX_COLUMNS, description="table: columns."
    )
    sections: list[SectionArgs] | None = Field(default=None, max_length=MAX_SECTIONS, description="sections.")
    tone: str | None = Field(default=None, description="notice: info, success, warning or critical.")
    text: str | None = Field(default=None, max_length=2000, description="notice: fixed text.")
    max_items: int | None = Field(default=None, description="list: how many entries to show.")
    max_rows: int | None = Field(default=None, description="table: how many rows to show.")
    empty_text: str | None = Field(default=None, max_length=200, description="list/table: text when empty.")


def _definition(args: DefinitionArgs | None) -> dict | None:
    return args.model_dump(exclude_none=True) if args is not None else None


class ListArgs(Args):
    dashboard_only: bool = Field(default=False, description="true: only widgets shown on the dashboard.")
    query: str | None = Field(default=None, max_length=200, description="Words in title or description.")


@widget_tools(
    "list",
    read_only=True,
    description="List your installed Widgets (dashboard cards), optionally only those on the dashboard. "
    "Use widgets_get for a widget's data.",
)
def list_widgets(ctx: ToolContext, args: ListArgs) -> dict:
    widgets = services.list_widgets(ctx.principal, dashboard_only=args.dashboard_only, query=args.query)
    return {"widgets": [widget_record(w, with_data=False) for w in widgets], "count": len(widgets)}


@widget_tools(
    "get", read_only=True, description="Read one of your Widgets with its latest data, by id or slug."
)
def get_widget(ctx: ToolContext, args: _Ref) -> dict:
    return {"widget": widget_record(services.get_widget(ctx.principal, **args.ref()))}


class CreateArgs(_TitleAlias):
    title: str = Field(min_length=1, max_length=TITLE_MAX, description="The widget's name.")
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    slug: str | None = Field(
        default=None, max_length=SLUG_MAX, description="Short address; derived if omitted."
    )
    widget_definition: DefinitionArgs | None = Field(
        default=None, description="The layout; omit it to infer one from latest_data."
    )
    latest_data: JsonData = None
    show_on_dashboard: bool = True


@widget_tools(
    "create",
    read_only=False,
    description="Create a Widget on your dashboard. Types: stats, list, table, notice, sections. Without a "
    "widget_definition the type is inferred from latest_data.",
)
def create_widget(ctx: ToolContext, args: CreateArgs) -> dict:
    widget = services.create_widget(
        ctx.principal,
        title=args.title,
        description=args.description or "",
        slug=args.slug,
        definition=_definition(args.widget_definition),
        data=args.latest_data,
        show_on_dashboard=args.show_on_dashboard,
    )
    return {"widget": widget_record(widget)}


class UpdateArgs(_Ref, _TitleAlias):
    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    widget_definition: DefinitionArgs | None = Field(default=None, description="Replaces the layout.")
    show_on_dashboard: bool | None = None
    position: int | None = Field(default=None, ge=0, description="Order on the dashboard, 0 = first.")
    expected_version: int | None = Field(default=None, description="Refuse if the widget's version differs.")


@widget_tools(
    "update",
    read_only=False,
    description="Change a Widget's name, description, widget_definition, dashboard visibility or position; "
    "fields you leave out stay as they are.",
)
def update_widget(ctx: ToolContext, args: UpdateArgs) -> dict:
    changes = {
        "title": args.title,
        "description": args.description,
        "definition": _definition(args.widget_definition),
        "show_on_dashboard": args.show_on_dashboard,
        "position": args.position,
    }
    widget = services.update_widget(
        ctx.principal,
        {k: v for k, v in changes.items() if v is not None},
        expected_version=args.expected_version,
        **args.ref(),
    )
    return {"widget": widget_record(widget)}


class UpdateDataArgs(_Ref):
    latest_data: JsonData
    expected_version: int | None = Field(default=None, description="Refuse if the widget's version differs.")


@widget_tools(
    "update_data",
    read_only=False,
    description="Replace a Widget's latest data. A layout inferred from data upgrades itself when richer "
    "data arrives (e.g. a list becomes a table).",
)
def update_widget_data(ctx: ToolContext, args: UpdateDataArgs) -> dict:
    widget = services.update_data(
        ctx.principal, args.latest_data, expected_version=args.expected_version, **args.ref()
    )
    return {"widget": widget_record(widget)}
