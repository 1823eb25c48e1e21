"""The output models build the wire records themselves (`RowOutput.record`): byte for byte the
shape the hand-written `records.py` builder sent to tools, the REST API and live events. The
builder below is `apps/widgets/records.py` before it went, kept as the reference."""

import json

import pytest

from apps.core.records import attrs, iso, stamps
from apps.core.surfaces.api import dump
from apps.widgets import contracts as c
from apps.widgets.models import Widget
from apps.widgets.services import get_widget

pytestmark = pytest.mark.django_db


def widget_record(widget, *, with_data=True):
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


def same_bytes(a, b):
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.fixture
def widgets(anna, as_anna):
    empty = Widget.objects.create(owner=anna, slug="leer", title="Leer", type="notice", definition={})
    full = Widget.objects.create(
        owner=anna,
        slug="zahlen",
        title="Zahlen „offen“",
        description="Fristen\nheute",
        type="stats",
        definition={"type": "stats", "items": [{"label": "Offen", "key": "Offen", "unit": None}]},
        definition_inferred=True,
        data={"Offen": 5, "Quote": 2.5, "Liste": ["ä", None, True], "leer": {}},
        data_updated_at="2026-12-01T10:15:30.123456+00:00",
        show_on_dashboard=False,
        position=7,
        version=3,
    )
    return [get_widget(as_anna, widget_id=w.pk) for w in (empty, full)]


def test_widget_records_are_byte_for_byte_the_builder(widgets):
    for widget in widgets:
        assert same_bytes(c.WidgetOut.record(widget), widget_record(widget))
        assert same_bytes(c.WidgetSummaryOut.record(widget), widget_record(widget, with_data=False))


def test_rest_answers_alike_from_the_model_and_from_the_old_record(widgets):
    for widget in widgets:
        assert same_bytes(
            dump(c.WidgetResult, {"widget": c.WidgetOut.of(widget)}),
            dump(c.WidgetResult, {"widget": widget_record(widget)}),
        )
