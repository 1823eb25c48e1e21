"""widgets_* tools and their mini_apps_* aliases: success, bad input, permission, query counts."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.mutations.models import MutationEvent
from apps.tools.dispatcher import dispatch
from apps.tools.registry import get
from apps.widgets.models import Widget
from tests.widgets.factories import WidgetFactory

pytestmark = pytest.mark.django_db
ACTIONS = ["list", "get", "create", "update", "update_data"]


@pytest.mark.parametrize("action", ACTIONS)
def test_aliases_share_one_implementation(action):
    new, old = get(f"widgets_{action}"), get(f"mini_apps_{action}")
    assert new.handler is old.handler and new.args_model is old.args_model
    assert new.read_only is old.read_only is (action in ("list", "get"))
    assert not new.is_gated and not old.is_gated


@pytest.mark.parametrize("prefix", ["widgets", "mini_apps"])
def test_lifecycle(anna_ctx, prefix):
    created = dispatch(
        f"{prefix}_create",
        {"title": "Fristen", "latest_data": json.dumps({"Offen": 3, "Kritisch": 1})},
        anna_ctx,
    )
    assert created.ok, created.message
    widget = created.output["widget"]
    assert widget["type"] == "stats" and widget["latest_data"] == {"Offen": 3, "Kritisch": 1}
    assert created.refresh_topic == "mini-apps" and created.mutation_event_id
    ref = {"widget_id": widget["id"]}

    listed = dispatch(f"{prefix}_list", {"dashboard_only": True}, anna_ctx)
    assert [w["id"] for w in listed.output["widgets"]] == [widget["id"]] and listed.output["count"] == 1
    assert (
        dispatch(f"{prefix}_get", {"slug": widget["slug"]}, anna_ctx).output["widget"]["id"] == widget["id"]
    )

    updated = dispatch(
        f"{prefix}_update",
        {
            **ref,
            "name": "Fristen heute",
            "widget_definition": {"type": "stats", "items": [{"label": "Offen", "key": "Offen"}]},
        },
        anna_ctx,
    )
    assert updated.ok, updated.message
    assert updated.output["widget"]["title"] == "Fristen heute"
    assert updated.output["widget"]["definition_inferred"] is False

    data = dispatch(f"{prefix}_update_data", {**ref, "latest_data": {"Offen": 9}}, anna_ctx)
    assert data.ok and data.output["widget"]["latest_data"] == {"Offen": 9}
    assert data.refresh_topic == "mini-apps"


def test_create_with_definition_and_text_data(anna_ctx):
    result = dispatch(
        "widgets_create",
        {
            "title": "Hinweis",
            "latest_data": "Freitag geschlossen",
            "widget_definition": {"type": "notice", "tone": "warning", "items": None, "columns": None},
        },
        anna_ctx,
    )
    assert result.ok, result.message
    assert result.output["widget"]["widget_definition"] == {"type": "notice", "tone": "warning"}
    assert result.output["widget"]["latest_data"] == "Freitag geschlossen"


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("widgets_create", {"title": "x", "widget_definition": {"type": "chart"}}, "invalid_widget_type"),
        ("mini_apps_create", {"title": "x", "widget_definition": {"type": "gauge"}}, "invalid_widget_type"),
        (
            "widgets_create",
            {"title": "x", "widget_definition": {"type": "notice", "tone": "pink"}},
            "invalid_widget_definition",
        ),
        ("widgets_create", {"title": "x", "latest_data": '[1, {"a": 1}]'}, "invalid_widget_data"),
        ("widgets_create", {"title": "x"}, "invalid_input"),
        ("widgets_create", {"latest_data": "x"}, "invalid_arguments"),
        ("widgets_create", {"title": "x", "owner_id": 2, "latest_data": "x"}, "invalid_arguments"),
        ("widgets_get", {}, "invalid_arguments"),
        ("widgets_get", {"widget_id": 987654}, "widget_not_found"),
        ("widgets_update", {"widget_id": 987654, "title": "x"}, "widget_not_found"),
        ("widgets_update_data", {"slug": "gibt-es-nicht", "latest_data": "x"}, "widget_not_found"),
        ("widgets_update_data", {"widget_id": 1}, "invalid_arguments"),
        ("widgets_list", {"dashboard_only": "vielleicht"}, "invalid_arguments"),
    ],
)
def test_bad_input_has_a_clear_code_and_writes_nothing(anna_ctx, name, args, code):
    result = dispatch(name, args, anna_ctx)
    assert (result.ok, result.code) == (False, code), result.message
    assert result.message
    assert not Widget.objects.exists() and not MutationEvent.objects.exists()


def test_another_users_widget_is_invisible(anna, ben_ctx, robot_ctx):
    widget = WidgetFactory(owner=anna, data={"offen": 1})
    for name, args in [
        ("widgets_get", {"widget_id": widget.pk}),
        ("mini_apps_get", {"slug": widget.slug}),
        ("widgets_update", {"widget_id": widget.pk, "title": "gehackt"}),
        ("widgets_update_data", {"widget_id": widget.pk, "latest_data": "gehackt"}),
    ]:
        assert dispatch(name, args, ben_ctx).code == "widget_not_found"
    assert dispatch("widgets_list", {}, ben_ctx).output["widgets"] == []
    assert dispatch("widgets_list", {}, robot_ctx).code == "CLAPILOT_NO_USER_CONTEXT"
    assert (
        dispatch("widgets_create", {"title": "x", "latest_data": "y"}, robot_ctx).code
        == "CLAPILOT_NO_USER_CONTEXT"
    )
    widget.refresh_from_db()
    assert widget.data == {"offen": 1} and widget.title != "gehackt"


def test_list_query_count_is_constant(anna, anna_ctx):
    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert dispatch("widgets_list", {}, anna_ctx).ok
        return len(ctx.captured_queries)

    WidgetFactory.create_batch(2, owner=anna)
    few = count()
    WidgetFactory.create_batch(20, owner=anna)
    assert count() == few
