"""The one wire shape of a widget (tools, REST API, live events). Argument and record names follow
the seed contract: `widget_definition` and `latest_data`."""

from __future__ import annotations

from apps.widgets.models import Widget


def widget_record(widget: Widget, *, with_data: bool = True) -> dict:
    record = {
        "id": widget.pk,
        "slug": widget.slug,
        "title": widget.title,
        "description": widget.description,
        "type": widget.type,
        "widget_definition": widget.definition,
        "definition_inferred": widget.definition_inferred,
        "show_on_dashboard": widget.show_on_dashboard,
        "position": widget.position,
        "version": widget.version,
        "data_updated_at": widget.data_updated_at.isoformat() if widget.data_updated_at else None,
        "created_at": widget.created_at.isoformat(),
        "updated_at": widget.updated_at.isoformat(),
    }
    if with_data:
        record["latest_data"] = widget.data
    return record
