"""The REST API under /api/v1/widgets/."""

import pytest
from rest_framework.test import APIClient

from apps.widgets.models import Widget
from tests.factories import device_client
from tests.widgets.factories import WidgetFactory

pytestmark = pytest.mark.django_db


def _client(user):
    return device_client(user)


def test_widget_lifecycle(anna):
    api = _client(anna)
    created = api.post(
        "/api/v1/widgets/", {"title": "Mandanten", "latest_data": ["Meier", "Schulz"]}, format="json"
    )
    assert created.status_code == 201, created.content
    widget = created.json()["widget"]
    assert widget["type"] == "list"
    url = f"/api/v1/widgets/{widget['id']}"
    assert api.get("/api/v1/widgets/").json()["count"] == 1
    patched = api.patch(url, {"latest_data": [{"Mandant": "Meier"}], "expected_version": 1}, format="json")
    assert patched.status_code == 200 and patched.json()["widget"]["type"] == "table"
    stale = api.patch(url, {"title": "alt", "expected_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    assert api.get(url).json()["widget"]["latest_data"] == [{"Mandant": "Meier"}]
    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404


def test_bad_input_and_other_users(anna, ben):
    api = _client(anna)
    bad = api.post("/api/v1/widgets/", {"title": "x", "widget_definition": {"type": "chart"}}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_widget_type"
    assert api.post("/api/v1/widgets/", {"latest_data": "x"}, format="json").status_code == 400
    theirs = WidgetFactory(owner=ben)
    assert api.get(f"/api/v1/widgets/{theirs.pk}").status_code == 404
    assert api.patch(f"/api/v1/widgets/{theirs.pk}", {"title": "x"}, format="json").status_code == 404
    assert api.delete(f"/api/v1/widgets/{theirs.pk}").status_code == 404
    assert Widget.objects.count() == 1
    assert APIClient().get("/api/v1/widgets/").status_code == 401
