"""GET/PUT /api/v1/me/preferences: the apps read and change a person's own preferences (device
tokens and sessions; API keys act for automations and are refused)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from tests.factories import UserFactory, device_client

pytestmark = pytest.mark.django_db

URL = "/api/v1/me/preferences"


@pytest.fixture
def anna():
    return UserFactory(email="anna@kanzlei.example", language="de", time_zone="Europe/Berlin")


def test_a_phone_reads_and_changes_its_persons_preferences(anna):
    client = device_client(anna)
    got = client.get(URL)
    assert got.status_code == 200
    assert got.json() == {
        "preferences": {
            "language": "de",
            "time_zone": "Europe/Berlin",
            "mute_toasts": False,
            "morning_digest": True,
        }
    }
    changed = client.put(
        URL, {"language": "it", "time_zone": "Europe/Rome", "morning_digest": False}, format="json"
    )
    assert changed.status_code == 200
    assert changed.json()["preferences"] == {
        "language": "it",
        "time_zone": "Europe/Rome",
        "mute_toasts": False,  # not sent: kept
        "morning_digest": False,
    }
    anna.refresh_from_db()
    assert (anna.language, anna.time_zone, anna.morning_digest, anna.mute_toasts) == (
        "it",
        "Europe/Rome",
        False,
        False,
    )


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"language": "de", "time_zone": "Mars/Olympus"}, "invalid_time_zone"),
        ({"language": "fr", "time_zone": "Europe/Berlin"}, None),
        ({"language": "de", "time_zone": "Europe/Berlin", "morning_digest": "no"}, None),
        ({"time_zone": "Europe/Berlin"}, None),
    ],
)
def test_bad_preferences_are_refused_and_change_nothing(anna, body, code):
    response = device_client(anna).put(URL, body, format="json")
    assert response.status_code == 400
    answer = response.json()
    assert answer["code"] and answer["message"]
    if code:
        assert answer["code"] == "invalid_request" and answer["details"]["field_codes"]["time_zone"] == code
    anna.refresh_from_db()
    assert (anna.language, anna.time_zone, anna.morning_digest) == ("de", "Europe/Berlin", True)


def test_only_the_person_themselves(anna):
    other = UserFactory()
    device_client(other).put(
        URL, {"language": "en", "time_zone": "UTC", "morning_digest": False}, format="json"
    )
    anna.refresh_from_db()
    assert anna.morning_digest is True and anna.language == "de"  # nobody can change another's

    assert APIClient().get(URL).status_code in (401, 403)
    admin = UserFactory(role="admin", is_superuser=True)
    _, plaintext = keys.create_api_key(Principal.for_user(admin), name="k", scopes=["tools:execute"])
    key = APIClient()
    key.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert key.get(URL).status_code == 403
    assert key.put(URL, {"language": "en", "time_zone": "UTC"}, format="json").status_code == 403
    admin.refresh_from_db()
    assert admin.language != "en" or admin.time_zone != "UTC"


def test_the_admin_shows_the_switches(admin_client, anna):
    page = admin_client.get(f"/admin/accounts/user/{anna.pk}/change/")
    assert page.status_code == 200
    assert b'name="morning_digest"' in page.content and b'name="mute_toasts"' in page.content
    listed = admin_client.get("/admin/accounts/user/?morning_digest__exact=0")
    assert listed.status_code == 200
