"""The one wire shape of a widget (tools, REST API, live events). Argument and record names follow
the seed contract: `widget_definition` and `latest_data`."""

from __future__ import annotations

from apps.core.records import attrs, iso, stamps
from apps.widgets.models import Widget


def widget_record(widget: Widget, *, with_data: bool = True) -> dict:
    record = {
        "id": widget.pk,
        **attrs(widget, "slug", "title", "description", "type"),
        "widget_definition": widget.definition,
        **attrs(widget, "definition_inferred", "show_on_dashboard", "position", "version"),
        "data_updated_at": iso(widget.data_updated_at),
        **stamps(widget, version=False),
    }
    if with_data:
        record["latest_data"] = widget.data
    return record
