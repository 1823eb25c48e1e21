"""Settings → Developer (admins) and Settings → Devices (everyone)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.apikeys import services
from apps.apikeys.models import ApiKey, DeviceToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

DEVELOPER = "/settings/developer/"
DEVICES = "/settings/devices/"


def test_urls_are_where_the_settings_page_links(client, office_admin):
    assert reverse("apikeys:developer") == DEVELOPER and reverse("apikeys:devices") == DEVICES
    client.force_login(office_admin)
    body = client.get(reverse("settings")).content.decode()
    assert DEVELOPER in body and DEVICES in body


def test_staff_settings_link_only_to_devices(client, staff):
    client.force_login(staff)
    body = client.get(reverse("settings")).content.decode()
    assert DEVICES in body and DEVELOPER not in body


def test_developer_page_is_for_admins(client, staff):
    assert client.get(DEVELOPER).status_code == 302  # to the login
    client.force_login(staff)
    response = client.get(DEVELOPER)
    assert response.status_code == 403
    assert "only available to administrators" in response.content.decode()
    assert client.post(DEVELOPER, {"name": "x", "scopes": ["memory:read"]}).status_code == 403
    assert not ApiKey.objects.exists()


def test_developer_page_empty_state(client, office_admin):
    client.force_login(office_admin)
    response = client.get(DEVELOPER)
    assert response.status_code == 200
    body = response.content.decode()
    assert "No API keys yet" in body
    for scope in (
        "tools:execute",
        "memory:read",
        "memory:write",
        "inference:execute",
        "notifications:read",
        "usage:read",
    ):
        assert f'value="{scope}"' in body


def test_create_shows_the_key_exactly_once(client, office_admin):
    client.force_login(office_admin)
    response = client.post(
        DEVELOPER,
        {"name": "Build agent", "scopes": ["tools:execute", "memory:read"], "expires_in_days": "30"},
    )
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    key = ApiKey.objects.get()
    assert (key.name, key.scopes, key.created_by) == (
        "Build agent",
        ["tools:execute", "memory:read"],
        office_admin,
    )
    assert key.expires_at is not None
    body = response.content.decode()
    start = body.index('id="new-api-key">') + len('id="new-api-key">')
    plaintext = body[start : body.index("</code>", start)]
    assert plaintext.startswith(f"{key.prefix}.")
    assert services.authenticate_api_key(plaintext) == key
    # Listed afterwards, but the secret is never shown again.
    again = client.get(DEVELOPER).content.decode()
    assert key.prefix in again and "Build agent" in again
    assert plaintext not in again and plaintext.partition(".")[2] not in again


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "x"}, "Choose at least one scope."),
        ({"name": "x", "scopes": ["root:all"]}, "root:all"),
        ({"name": "", "scopes": ["memory:read"]}, "This field is required."),
        ({"name": "x", "scopes": ["memory:read"], "expires_in_days": "0"}, "greater than or equal to 1"),
    ],
)
def test_create_with_bad_input_shows_a_clear_error(client, office_admin, data, message):
    client.force_login(office_admin)
    response = client.post(DEVELOPER, data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert 'id="new-api-key"' not in response.content.decode()
    assert not ApiKey.objects.exists()


def test_revoke_from_the_page(client, office_admin, make_key):
    key, _plaintext = make_key()
    client.force_login(office_admin)
    response = client.post(reverse("apikeys:revoke-key", args=[key.pk]), follow=True)
    assert response.status_code == 200
    assert "has been revoked" in response.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is not None and key.revoked_by == office_admin
    assert "revoked" in response.content.decode()


def test_revoke_needs_post_and_admin(client, staff, make_key):
    key, _ = make_key()
    client.force_login(staff)
    assert client.post(reverse("apikeys:revoke-key", args=[key.pk])).status_code == 403
    key.refresh_from_db()
    assert key.revoked_at is None
    client.force_login(UserFactory(role="admin", language="en"))
    assert client.get(reverse("apikeys:revoke-key", args=[key.pk])).status_code == 405


def test_revoke_unknown_key_shows_an_error(client, office_admin):
    client.force_login(office_admin)
    response = client.post(reverse("apikeys:revoke-key", args=[999999]), follow=True)
    assert "No such API key." in response.content.decode()


def test_devices_page_lists_own_tokens_and_revokes(client, staff):
    client.force_login(staff)
    assert "No devices signed in." in client.get(DEVICES).content.decode()
    mine, _ = services.issue_device_token(staff, "Anna's iPhone")
    theirs, _ = services.issue_device_token(UserFactory(), "Bernd's Pixel")
    body = client.get(DEVICES).content.decode()
    assert "Anna&#x27;s iPhone" in body and "Bernd" not in body
    response = client.post(reverse("apikeys:revoke-device", args=[mine.pk]), follow=True)
    assert "has been signed out" in response.content.decode()
    mine.refresh_from_db()
    assert mine.revoked_at is not None
    # Someone else's token: refused, untouched.
    response = client.post(reverse("apikeys:revoke-device", args=[theirs.pk]), follow=True)
    assert "No such device token." in response.content.decode()
    assert DeviceToken.objects.get(pk=theirs.pk).revoked_at is None


def test_pages_render_in_german_by_default(client):
    admin = UserFactory(role="admin")
    client.force_login(admin)
    assert client.get(DEVELOPER).status_code == 200
    assert client.get(DEVICES).status_code == 200
