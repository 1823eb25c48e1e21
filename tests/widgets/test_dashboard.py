"""Widget cards on the dashboard: each type renders, content is escaped, constant queries,
live refresh on `mini-apps`."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.core.inputs import build
from apps.widgets import services
from apps.widgets.contracts import WidgetCreate
from apps.widgets.models import Widget
from tests.widgets.factories import WidgetFactory

pytestmark = pytest.mark.django_db


def test_every_type_renders(web, as_anna):
    services.create_widget(
        as_anna, build(WidgetCreate, title="Zahlen", latest_data={"Offen": 5, "Kritisch": 1})
    )
    services.create_widget(
        as_anna, build(WidgetCreate, title="Liste", latest_data=["Meier GmbH", "Bäckerei Schulz"])
    )
    services.create_widget(
        as_anna, build(WidgetCreate, title="Tabelle", latest_data=[{"Mandant": "Vogel", "Frist": "01.12."}])
    )
    services.create_widget(
        as_anna, build(WidgetCreate, title="Hinweis", latest_data={"text": "Freitag zu", "tone": "warning"})
    )
    services.create_widget(
        as_anna, build(WidgetCreate, title="Teile", latest_data={"Heute": ["Post"], "Zahlen": {"a": 2}})
    )
    body = web.get(reverse("dashboard")).content.decode()
    assert 'data-refresh-topic="mini-apps"' in body and reverse("widgets:cards") in body
    for marker in (
        "widget-stats",
        "<dd>5",
        "<li>Meier GmbH</li>",
        "<td>Vogel</td>",
        "tone-warning",
        "<h4>Heute</h4>",
    ):
        assert marker in body, marker


def test_dashboard_empty_state(web):
    body = web.get(reverse("dashboard")).content.decode()
    assert "widget-empty" in body


def test_widget_content_is_escaped(web, as_anna):
    services.create_widget(
        as_anna,
        build(WidgetCreate, title="<script>alert(1)</script>", latest_data=["<img src=x onerror=alert(1)>"]),
    )
    services.create_widget(
        as_anna, build(WidgetCreate, title="t", latest_data=[{"<b>k</b>": "<script>x</script>"}])
    )
    body = web.get(reverse("dashboard")).content.decode()
    assert "<script>alert" not in body and "<img src=x" not in body and "<b>k</b>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_only_own_widgets_and_constant_queries(web, anna, ben):
    WidgetFactory(owner=ben, title="Bens Widget")
    WidgetFactory(owner=anna, title="Versteckt", show_on_dashboard=False)

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            response = web.get(reverse("dashboard"))
        return len(ctx.captured_queries), response.content.decode()

    WidgetFactory.create_batch(2, owner=anna)
    few, body = queries()
    assert "Bens Widget" not in body and "Versteckt" not in body
    WidgetFactory.create_batch(15, owner=anna)
    assert queries()[0] == few


def test_cards_partial_and_delete(web, anna, ben):
    mine = WidgetFactory(owner=anna, title="Meins")
    theirs = WidgetFactory(owner=ben)
    partial = web.get(reverse("widgets:cards")).content.decode()
    assert "Meins" in partial and "<html" not in partial
    assert web.post(reverse("widgets:delete", args=[theirs.pk])).status_code == 404
    assert web.post(reverse("widgets:delete", args=[mine.pk])).status_code == 302
    assert list(Widget.objects.values_list("pk", flat=True)) == [theirs.pk]
