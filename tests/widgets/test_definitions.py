"""Type inference from data and per-type definition validation."""

import pytest

from apps.widgets.definitions import infer_definition, validate_definition
from apps.widgets.errors import InvalidWidgetData, InvalidWidgetDefinition, InvalidWidgetType


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"Offen": 4, "Kritisch": 1}, "stats"),
        (7, "stats"),
        (["Meier GmbH", "Bäckerei Schulz"], "list"),
        ([], "list"),
        ([{"Mandant": "Meier", "Frist": "2026-12-01"}], "table"),
        ("Freitag geschlossen", "notice"),
        ({"text": "Achtung", "tone": "warning"}, "notice"),
        ({"Heute": ["A", "B"], "Morgen": [{"x": 1}]}, "sections"),
        ({"Zahlen": {"a": 1}, "Hinweis": "Text", "Liste": ["x"]}, "sections"),
    ],
)
def test_inference(data, kind):
    assert infer_definition(data, "Titel")["type"] == kind


def test_inferred_details():
    table = infer_definition([{"a": 1, "b": 2}, {"b": 3, "c": 4}])
    assert [c["key"] for c in table["columns"]] == ["a", "b", "c"]
    sections = infer_definition({"Heute": ["A"], "Offen": [{"Mandant": "Meier"}]})
    assert [(s["key"], s["type"]) for s in sections["sections"]] == [("Heute", "list"), ("Offen", "table")]
    assert infer_definition({"text": "x", "tone": "critical"})["tone"] == "critical"


@pytest.mark.parametrize("data", [None, [1, {"a": 1}], {"a": [[1]]}, True and [[1, 2]]])
def test_data_without_a_fitting_type(data):
    with pytest.raises(InvalidWidgetData) as err:
        infer_definition(data)
    assert err.value.code == "invalid_widget_data" and "latest_data" in err.value.details["field_errors"]


def test_validation_codes():
    with pytest.raises(InvalidWidgetType) as unknown:
        validate_definition({"type": "chart"})
    assert unknown.value.code == "invalid_widget_type"
    assert "widget_definition.type" in unknown.value.details["field_errors"]
    with pytest.raises(InvalidWidgetType):
        validate_definition({"items": []})
    with pytest.raises(InvalidWidgetDefinition) as bad:
        validate_definition({"type": "table", "columns": [{"label": "ohne key"}]})
    assert bad.value.code == "invalid_widget_definition"
    assert any(k.startswith("widget_definition.columns") for k in bad.value.details["field_errors"])
    with pytest.raises(InvalidWidgetDefinition):
        validate_definition({"type": "notice", "tone": "pink"})
    with pytest.raises(InvalidWidgetDefinition):
        validate_definition({"type": "sections", "sections": []})
    with pytest.raises(InvalidWidgetDefinition):
        validate_definition("stats")
    assert validate_definition({"type": "list"}) == {"type": "list", "max_items": 10}
