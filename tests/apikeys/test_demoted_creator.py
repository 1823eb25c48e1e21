"""A key has its creator's rights of the moment, checked on every request; the creator (and every
administrator) can always see and revoke it, on the Developer page and over REST.

Before: a key minted by an administrator kept every scope after its creator was demoted, and the
demoted creator could neither see nor revoke it (the page and the revocation were admin-only)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services
from apps.apikeys.models import ApiKey
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def demote(user) -> None:
    user.role = "staff"
    user.is_superuser = False
    user.save(update_fields=["role", "is_superuser"])


def bearer(plaintext: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client


def test_admin_scopes_stop_when_the_creator_is_demoted_and_return_with_the_role(make_key, office_admin):
    _key, plaintext = make_key(scopes=["tools:execute", "notifications:read"])
    client = bearer(plaintext)
    assert client.get("/api/v1/tools").status_code == 200
    demote(office_admin)
    refused = client.get("/api/v1/tools")
    assert refused.status_code == 403
    assert refused.json()["code"] == "api_key_creator_not_admin"
    assert "tools:execute" in refused.json()["detail"]
    executed = client.post(
        "/api/v1/tools/execute", {"tool": "aufgaben_list_tasks", "arguments": {}}, format="json"
    )
    assert executed.status_code == 403
    # The creator's own notifications: what their own device token reads anyway.
    assert client.get("/api/v1/notifications").status_code == 200
    office_admin.role = "admin"
    office_admin.save(update_fields=["role"])
    assert client.get("/api/v1/tools").status_code == 200  # checked per request, not at minting


def test_a_deactivated_creators_keys_stop_working(make_key, office_admin):
    _key, plaintext = make_key(scopes=["tools:execute", "notifications:read"])
    office_admin.is_active = False
    office_admin.save(update_fields=["is_active"])
    for path in ("/api/v1/tools", "/api/v1/notifications"):
        response = bearer(plaintext).get(path)
        assert response.status_code == 401 and response.json()["code"] == "api_key_owner_inactive"


def test_the_demoted_creator_sees_and_revokes_their_keys_on_the_page(client, make_key, office_admin):
    own, _ = make_key(name="Build server")
    other_admin = UserFactory(role="admin", language="en")
    foreign, _ = make_key(name="Fremder Schlüssel", user=other_admin)
    demote(office_admin)
    client.force_login(office_admin)
    assert reverse("apikeys:developer") in client.get(reverse("settings")).content.decode()
    page = client.get(reverse("apikeys:developer"))
    assert page.status_code == 200
    body = page.content.decode()
    assert own.prefix in body and foreign.prefix not in body
    assert "Create an API key" not in body  # only administrators create keys
    assert (
        client.post(reverse("apikeys:developer"), {"name": "x", "scopes": ["memory:read"]}).status_code == 403
    )

    response = client.post(reverse("apikeys:revoke-key", args=[foreign.pk]), follow=True)
    assert "No such API key." in response.content.decode()
    foreign.refresh_from_db()
    assert foreign.revoked_at is None
    response = client.post(reverse("apikeys:revoke-key", args=[own.pk]), follow=True)
    assert "has been revoked" in response.content.decode()
    own.refresh_from_db()
    assert own.revoked_at is not None and own.revoked_by == office_admin


def test_keys_over_rest_creator_and_admins_see_and_revoke(make_key, office_admin, staff):
    own, _ = make_key(name="Build server")
    other_admin = UserFactory(role="admin", language="en")
    foreign, foreign_plaintext = make_key(name="Other", user=other_admin)
    demote(office_admin)
    _token, device = services.issue_device_token(office_admin, "Laptop")
    creator = APIClient()
    creator.credentials(HTTP_AUTHORIZATION=f"Token {device}")

    listed = creator.get("/api/v1/auth/keys").json()
    assert [k["prefix"] for k in listed["keys"]] == [own.prefix] and listed["total"] == 1
    assert listed["keys"][0]["created_by_id"] == office_admin.pk and listed["keys"][0]["status"] == "active"
    assert "secret_hash" not in listed["keys"][0]
    assert creator.delete(f"/api/v1/auth/keys/{foreign.pk}").status_code == 404
    assert creator.delete(f"/api/v1/auth/keys/{own.pk}").status_code == 204
    assert creator.delete(f"/api/v1/auth/keys/{own.pk}").status_code == 204  # idempotent
    assert ApiKey.objects.get(pk=own.pk).status == "revoked"
    assert ApiKey.objects.get(pk=foreign.pk).revoked_at is None

    # A member who created no key sees none; an administrator sees and revokes every key.
    bystander = APIClient()
    bystander.force_authenticate(staff)
    assert bystander.get("/api/v1/auth/keys").json()["keys"] == []
    admin = APIClient()
    admin.force_login(other_admin)
    assert {k["prefix"] for k in admin.get("/api/v1/auth/keys").json()["keys"]} == {
        own.prefix,
        foreign.prefix,
    }
    # A key cannot list or revoke keys, not even itself.
    assert bearer(foreign_plaintext).get("/api/v1/auth/keys").status_code == 403
    assert bearer(foreign_plaintext).delete(f"/api/v1/auth/keys/{foreign.pk}").status_code == 403
    assert admin.delete(f"/api/v1/auth/keys/{foreign.pk}").status_code == 204


def test_service_revocation_rules(make_key, office_admin, staff):
    key, _ = make_key()
    with pytest.raises(services.errors.KeyNotFound):
        services.revoke_api_key(Principal.for_user(staff), key_id=key.pk)
    demote(office_admin)
    assert services.revoke_api_key(Principal.for_user(office_admin), key_id=key.pk).revoked_at is not None


def test_the_refusal_is_in_the_creators_language(make_key):
    german = UserFactory(role="admin", is_superuser=True, language="de")
    _key, plaintext = make_key(user=german)
    demote(german)
    refused = bearer(plaintext).get("/api/v1/tools")
    assert refused.status_code == 403
    assert (
        "gilt nur, solange die Person, die den Schlüssel erstellt hat, Administrator ist"
        in refused.json()["detail"]
    )
