"""The typed contract of the widget operations: what callers send (input models, shared by the
tools, the REST API and the services) and what every surface answers with (output models, built
from the rows: `WidgetOut.record(widget)`).

Argument and record names follow the seed contract: `widget_definition` and `latest_data`. The
tools derive their arguments from the same models (`tools.py`); OpenAI strict mode cannot describe
free-form JSON, so there `latest_data` travels as JSON text and `widget_definition` as a closed
object, two tool-only narrowings.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, BeforeValidator, Field, WithJsonSchema, model_validator

from apps.core.contracts import Input, Output, Position, query_field, wrapped
from apps.core.outputs import RowOutput
from apps.widgets.definitions import MAX_COLUMNS, MAX_SECTIONS, MAX_STATS, TYPES
from apps.widgets.models import DESCRIPTION_MAX, SLUG_MAX, TITLE_MAX

# What the services validate (`definitions.validate_definition`, `check_data`), with their own
# codes (`invalid_widget_type`, `invalid_widget_definition`, `invalid_widget_data`).
Definition = Annotated[
    Any,
    WithJsonSchema(
        {
            "type": "object",
            "description": f"The layout: an object with `type` (one of: {', '.join(TYPES)}) and the "
            "type's settings (items, columns, sections, tone, text, max_items, max_rows, empty_text).",
            "properties": {"type": {"type": "string", "enum": list(TYPES)}},
            "required": ["type"],
        }
    ),
]
LatestData = Annotated[
    Any,
    WithJsonSchema(
        {
            "description": "Any JSON: an object of numbers (stats), a list of strings (list), a list "
            "of objects (table), an object of lists (sections); text becomes a notice.",
        }
    ),
]


# --- output -----------------------------------------------------------------------------------
class WidgetSummaryOut(RowOutput):
    """A widget without its data (what the list tool answers with)."""

    id: int
    slug: str
    title: str
    description: str
    type: str = Field(description=f"One of: {', '.join(TYPES)}.")
    widget_definition: dict[str, Any]
    definition_inferred: bool = Field(description="The layout was derived from the data and follows it.")
    show_on_dashboard: bool
    position: int
    version: int
    data_updated_at: dt.datetime | None
    created_at: dt.datetime
    updated_at: dt.datetime


class WidgetOut(WidgetSummaryOut):
    latest_data: LatestData = None


class WidgetList(Output):
    widgets: list[WidgetOut]
    count: int = Field(description="How many widgets are listed (at most 200, no further pages).")


class WidgetSummaryList(Output):
    widgets: list[WidgetSummaryOut]
    count: int


WidgetResult = wrapped(WidgetOut, "widget")


# --- input ------------------------------------------------------------------------------------
class WidgetFilter(Input):
    dashboard_only: bool = Field(default=False, description="true: only widgets shown on the dashboard.")
    query: str | None = query_field("Words in title or description.")


class WidgetCreate(Input):
    # The seed's contract calls the title `name`; both are accepted.
    title: str = Field(
        min_length=1,
        max_length=TITLE_MAX,
        validation_alias=AliasChoices("title", "name"),
        description="The widget's name.",
    )
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    slug: str | None = Field(
        default=None, max_length=SLUG_MAX, description="Short address; derived if omitted."
    )
    widget_definition: Definition = Field(
        default=None, description="The layout; omit it to infer one from latest_data."
    )
    latest_data: LatestData = None
    show_on_dashboard: bool = True

    def layout(self) -> Any:
        """The layout as plain JSON (the tools send it as a closed object), or None to infer it."""
        return _plain(self.widget_definition)


class WidgetUpdate(Input):
    """A partial change of name, description, layout, dashboard visibility or position; fields
    left out stay as they are."""

    title: str | None = Field(
        default=None, min_length=1, max_length=TITLE_MAX, validation_alias=AliasChoices("title", "name")
    )
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    widget_definition: Definition = Field(default=None, description="Replaces the layout.")
    show_on_dashboard: bool | None = None
    position: Position | None = Field(default=None, description="Order on the dashboard, 0 = first.")
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse the change if the widget's version differs."
    )

    def changes(self) -> dict[str, Any]:
        values = {
            "title": self.title,
            "description": self.description,
            "definition": _plain(self.widget_definition),
            "show_on_dashboard": self.show_on_dashboard,
            "position": self.position,
        }
        return {k: v for k, v in values.items() if v is not None}


class WidgetPatch(WidgetUpdate):
    """REST: a partial change and/or new latest data in one request (`latest_data: null` is data
    too: it empties the card)."""

    latest_data: LatestData = Field(default=None, description="Replaces the latest data when present.")


class WidgetDataUpdate(Input):
    latest_data: LatestData
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse the change if the widget's version differs."
    )


# --- tools: the same operations, addressed by id or slug, in OpenAI strict mode --------------
def _plain(value: Any) -> Any:
    return value.model_dump(exclude_none=True) if isinstance(value, BaseModel) else value


def _json_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value  # plain text: a notice
    return value


JsonText = Annotated[
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


class StatItemIn(Input):
    label: str = Field(max_length=80)
    key: str | None = Field(default=None, max_length=120, description="Key of the value in the data.")
    unit: str | None = Field(default=None, max_length=20)
    tone: str | None = Field(default=None, description="neutral, info, success, warning or critical")


class ColumnIn(Input):
    key: str = Field(max_length=120, description="Key in each data row.")
    label: str | None = Field(default=None, max_length=80)


class SectionIn(Input):
    key: str = Field(max_length=120, description="Key of this section's data in the data object.")
    title: str | None = Field(default=None, max_length=80)
    type: str = Field(description="stats, list, table or notice")
    items: list[StatItemIn] | None = Field(default=None, max_length=MAX_STATS)
    columns: list[ColumnIn] | None = Field(default=None, max_length=MAX_COLUMNS)
    max_items: int | None = None
    tone: str | None = None


class DefinitionIn(Input):
    """The layout as a closed object (strict mode); the services validate it per type."""

    type: str = Field(description=f"One of: {', '.join(TYPES)}.")
    items: list[StatItemIn] | None = Field(
        default=None, max_length=MAX_STATS, description="stats: the figures."
    )
    columns: list[ColumnIn] | None = Field(
        default=None, max_length=MAX_COLUMNS, description="table: columns."
    )
    sections: list[SectionIn] | None = Field(default=None, max_length=MAX_SECTIONS, description="sections.")
    tone: str | None = Field(default=None, description="notice: info, success, warning or critical.")
    text: str | None = Field(default=None, max_length=2000, description="notice: fixed text.")
    max_items: int | None = Field(default=None, description="list: how many entries to show.")
    max_rows: int | None = Field(default=None, description="table: how many rows to show.")
    empty_text: str | None = Field(default=None, max_length=200, description="list/table: text when empty.")


class WidgetRef(Input):
    widget_id: int | None = Field(default=None, description="The widget's id.")
    slug: str | None = Field(default=None, max_length=SLUG_MAX, description="The widget's slug.")

    @model_validator(mode="after")
    def _one_reference(self):
        if (self.widget_id is None) == (self.slug is None):
            raise ValueError("give either widget_id or slug")
        return self

    def ref(self) -> dict[str, Any]:
        return {"widget_id": self.widget_id, "slug": self.slug}


class WidgetCreateStrict(WidgetCreate):
    widget_definition: DefinitionIn | None = Field(
        default=None, description="The layout; omit it to infer one from latest_data."
    )
    latest_data: JsonText = None


class WidgetUpdateByRef(WidgetUpdate, WidgetRef):
    widget_definition: DefinitionIn | None = Field(default=None, description="Replaces the layout.")


class WidgetDataUpdateByRef(WidgetDataUpdate, WidgetRef):
    latest_data: JsonText
