"""Live events of widgets: private to their owner, `refresh_topic` = `mini-apps` (the seed's topic),
so an open dashboard refetches its widget cards."""

from __future__ import annotations

from apps.mutations import actions
from apps.mutations.services import record_mutation
from apps.widgets.models import Widget

REFRESH_TOPIC = "mini-apps"
LIST = "widgets"


def widget_changed(widget: Widget, announce_key: str) -> None:
    highlight = actions.highlight(f"widget-{widget.pk}") | {
        "announce_key": announce_key,
        "record": {"id": widget.pk, "title": widget.title, "type": widget.type},
    }
    record_mutation(
        audience="user",
        user=widget.owner,
        topic="mini-apps.widget.updated",
        ui_actions=[highlight],
        refresh_topic=REFRESH_TOPIC,
    )


def widget_deleted(widget_id: int, owner) -> None:
    removal = actions.remove(LIST, f"widget-{widget_id}") | {"announce_key": "widgets.widget.deleted"}
    record_mutation(
        audience="user",
        user=owner,
        topic="mini-apps.widget.deleted",
        ui_actions=[removal],
        refresh_topic=REFRESH_TOPIC,
    )
