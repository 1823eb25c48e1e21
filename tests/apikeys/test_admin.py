"""Admin control plane: list, create (key shown once), revoke; never hashes."""

from __future__ import annotations

import re

import pytest

from apps.apikeys import services
from apps.apikeys.models import ApiKey, DeviceToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(db):
    return UserFactory(role="admin", is_superuser=True, language="en")


def test_changelists_and_detail_render_without_hashes(client, superuser, make_key):
    key, plaintext = make_key(user=superuser)
    token, token_plain = services.issue_device_token(superuser, "Phone")
    client.force_login(superuser)
    for url in (
        "/admin/apikeys/apikey/",
        "/admin/apikeys/apikey/?status=active",
        "/admin/apikeys/apikey/?status=revoked",
        "/admin/apikeys/apikey/?status=expired",
        f"/admin/apikeys/apikey/{key.pk}/change/",
        "/admin/apikeys/devicetoken/",
        f"/admin/apikeys/devicetoken/{token.pk}/change/",
        "/admin/apikeys/apikey/add/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        for secret in (
            key.secret_hash,
            token.token_hash,
            plaintext.partition(".")[2],
            token_plain.partition(".")[2],
        ):
            assert secret not in body, url


def test_create_in_admin_shows_the_key_once(client, superuser):
    client.force_login(superuser)
    response = client.post(
        "/admin/apikeys/apikey/add/",
        {"name": "MCP server", "scopes": ["memory:read", "memory:write"], "expires_in_days": ""},
    )
    assert response.status_code == 200
    key = ApiKey.objects.get()
    assert (
        key.created_by == superuser
        and key.scopes == ["memory:read", "memory:write"]
        and key.expires_at is None
    )
    match = re.search(r"<code>(clp_[a-z0-9]{8}\.[A-Za-z0-9_-]+)</code>", response.content.decode())
    assert match, response.content.decode()
    assert services.authenticate_api_key(match.group(1)) == key
    # Not carried over to the next page (no message cookie, no session).
    assert match.group(1) not in client.get("/admin/apikeys/apikey/").content.decode()


def test_create_in_admin_validates_scopes(client, superuser):
    client.force_login(superuser)
    response = client.post("/admin/apikeys/apikey/add/", {"name": "x", "scopes": ["nope"]})
    assert response.status_code == 200
    assert "nope" in response.content.decode() and not ApiKey.objects.exists()


def test_revoke_actions(client, superuser, make_key, staff):
    key, _ = make_key(user=superuser)
    token, _ = services.issue_device_token(staff, "Phone")
    client.force_login(superuser)
    response = client.post(
        "/admin/apikeys/apikey/", {"action": "revoke_selected", "_selected_action": [key.pk]}, follow=True
    )
    assert response.status_code == 200
    key.refresh_from_db()
    assert key.revoked_at is not None and key.revoked_by == superuser
    client.post("/admin/apikeys/devicetoken/", {"action": "revoke_selected", "_selected_action": [token.pk]})
    assert DeviceToken.objects.get(pk=token.pk).revoked_at is not None


def test_keys_cannot_be_edited_or_deleted_in_admin(client, superuser, make_key):
    key, _ = make_key(user=superuser)
    client.force_login(superuser)
    client.post(f"/admin/apikeys/apikey/{key.pk}/change/", {"name": "renamed"})
    key.refresh_from_db()
    assert key.name == "Test key"
    assert client.get(f"/admin/apikeys/apikey/{key.pk}/delete/").status_code == 403
