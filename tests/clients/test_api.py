"""The mobile REST API under /api/v1/clients/ and /api/v1/cases/."""

import pytest
from rest_framework.test import APIClient

from apps.clients.models import Client
from tests.factories import device_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(anna):
    return device_client(anna)


def test_client_lifecycle(api):
    created = api.post(
        "/api/v1/clients/", {"name": "Familie Hoffmann", "client_number": "10001"}, format="json"
    )
    assert created.status_code == 201, created.content
    cid = created.json()["client"]["id"]
    assert api.get(f"/api/v1/clients/{cid}").json()["client"]["name"] == "Familie Hoffmann"
    patched = api.patch(f"/api/v1/clients/{cid}", {"city": "München"}, format="json")
    assert patched.status_code == 200 and patched.json()["client"]["city"] == "München"
    listed = api.get("/api/v1/clients/", {"q": "hoffmann"}).json()
    assert listed["total"] == 1 and listed["clients"][0]["id"] == cid
    assert api.get("/api/v1/clients/424242").status_code == 404


def test_client_number_clash(api, make_client):
    make_client("Meier GmbH", client_number="10003")
    response = api.post("/api/v1/clients/", {"name": "Meier AG", "client_number": "10003"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    assert Client.objects.count() == 1


def test_case_lifecycle(api, make_client):
    client = make_client("Autohaus König")
    created = api.post(
        "/api/v1/cases/", {"client_id": client.pk, "reference": "2026-0004", "subject": "Lohn"}, format="json"
    )
    assert created.status_code == 201, created.content
    case_id = created.json()["case"]["id"]
    assert api.get(f"/api/v1/cases/{case_id}").json()["case"]["subject"] == "Lohn"
    patched = api.patch(f"/api/v1/cases/{case_id}", {"status": "closed"}, format="json")
    assert patched.json()["case"]["status"] == "closed"
    assert api.get("/api/v1/cases/", {"client_id": client.pk}).json()["total"] == 1
    missing = api.post("/api/v1/cases/", {"client_id": 4242, "reference": "X", "subject": "Y"}, format="json")
    assert missing.status_code == 404 and missing.json()["code"] == "client_not_found"
    assert api.get("/api/v1/cases/424242").status_code == 404


def test_requires_authentication():
    assert APIClient().get("/api/v1/clients/").status_code in (401, 403)


def test_bad_choice_is_a_field_error(api):
    response = api.post(
        "/api/v1/clients/", {"name": "X", "client_number": "1", "status": "deleted"}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    assert not Client.objects.exists()
