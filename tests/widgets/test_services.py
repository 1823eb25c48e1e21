"""Widget services: owner-only scope, inference and upgrades, events to the owner only."""

import pytest

from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.widgets import services
from apps.widgets.contracts import WidgetCreate, WidgetDataUpdate, WidgetUpdate
from apps.widgets.errors import InvalidWidgetData, NoUserContext, SlugTaken, WidgetNotFound
from apps.widgets.models import Widget

pytestmark = pytest.mark.django_db


def test_create_infers_and_events_reach_only_the_owner(as_anna, anna, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        widget = services.create_widget(
            as_anna, build(WidgetCreate, title="Offene Fristen", latest_data={"Offen": 5, "Kritisch": 1})
        )
    assert (widget.type, widget.slug, widget.definition_inferred) == ("stats", "offene-fristen", True)
    assert widget.data_updated_at is not None and widget.position == 0
    event = MutationEvent.objects.get()
    assert (event.audience, event.user_id, event.refresh_topic) == ("user", anna.pk, "mini-apps")
    again = services.create_widget(as_anna, build(WidgetCreate, title="Offene Fristen", latest_data="x"))
    assert again.slug == "offene-fristen-2" and again.position == 1
    with pytest.raises(SlugTaken):
        services.create_widget(
            as_anna, build(WidgetCreate, title="y", slug="offene-fristen", latest_data="x")
        )


def test_inferred_layout_upgrades_with_richer_data_but_explicit_stays(as_anna):
    widget = services.create_widget(
        as_anna, build(WidgetCreate, title="Mandanten", latest_data=["Meier", "Schulz"])
    )
    assert widget.type == "list"
    widget = services.update_data(
        as_anna,
        build(WidgetDataUpdate, latest_data=[{"Mandant": "Meier", "Frist": "1.12."}]),
        widget_id=widget.pk,
    )
    assert widget.type == "table" and widget.version == 2
    widget = services.update_data(as_anna, build(WidgetDataUpdate, latest_data=[]), widget_id=widget.pk)
    assert widget.type == "table"  # empty data never downgrades
    fixed = services.create_widget(
        as_anna, build(WidgetCreate, title="Fix", widget_definition={"type": "list"}, latest_data=["a"])
    )
    fixed = services.update_data(as_anna, build(WidgetDataUpdate, latest_data={"a": 1}), slug=fixed.slug)
    assert fixed.type == "list" and not fixed.definition_inferred


def test_update_replaces_definition(as_anna):
    widget = services.create_widget(as_anna, build(WidgetCreate, title="Hinweis", latest_data="Text"))
    widget = services.update_widget(
        as_anna,
        build(WidgetUpdate, title="Wichtig", widget_definition={"type": "notice", "tone": "critical"}),
        widget_id=widget.pk,
    )
    assert (widget.title, widget.definition["tone"], widget.definition_inferred) == (
        "Wichtig",
        "critical",
        False,
    )
    with pytest.raises(InvalidInput):
        services.update_widget(as_anna, build(WidgetUpdate, owner_id=3), widget_id=widget.pk)


def test_bad_input_writes_nothing(as_anna):
    with pytest.raises(InvalidInput):
        services.create_widget(as_anna, build(WidgetCreate, title="Leer"))
    with pytest.raises(InvalidWidgetData):
        services.create_widget(as_anna, build(WidgetCreate, title="Riesig", latest_data=["x" * 1000] * 100))
    with pytest.raises(InvalidInput):
        services.create_widget(as_anna, build(WidgetCreate, title=" ", latest_data="x"))
    assert not Widget.objects.exists() and not MutationEvent.objects.exists()


def test_other_people_and_service_principals_see_nothing(as_anna, as_ben, robot_ctx):
    widget = services.create_widget(as_anna, build(WidgetCreate, title="Privat", latest_data="geheim"))
    with pytest.raises(WidgetNotFound):
        services.get_widget(as_ben, widget_id=widget.pk)
    with pytest.raises(WidgetNotFound):
        services.update_data(as_ben, build(WidgetDataUpdate, latest_data="gehackt"), widget_id=widget.pk)
    with pytest.raises(WidgetNotFound):
        services.delete_widget(as_ben, widget_id=widget.pk)
    assert services.list_widgets(as_ben) == []
    with pytest.raises(NoUserContext):
        services.list_widgets(robot_ctx.principal)
    assert Widget.objects.get().data == "geheim"


def test_delete_sends_a_removal(as_anna):
    widget = services.create_widget(as_anna, build(WidgetCreate, title="Weg", latest_data="x"))
    services.delete_widget(as_anna, widget_id=widget.pk)
    event = MutationEvent.objects.latest("id")
    assert event.topic == "mini-apps.widget.deleted" and event.ui_actions[0]["type"] == "remove"
