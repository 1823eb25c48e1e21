"""The DRF surface of API keys: authentication, scopes, creator binding, rate limit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.principal import Principal
from apps.apikeys import services
from apps.apikeys.models import ApiKey, Scope
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.apikeys.urls")]


class _WhoAmI(APIView):
    def get(self, request):
        auth = request.auth
        return Response({"user": request.user.pk, "key": auth.prefix if isinstance(auth, ApiKey) else None})

    def post(self, request):
        return self.get(request)


class ToolsView(_WhoAmI):
    required_scopes = ["tools:execute"]


class MemoryReadView(_WhoAmI):
    required_scopes = ("memory:read",)


class NoScopeView(_WhoAmI):
    pass


def bearer(plaintext: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {plaintext}"}


# --- scopes ------------------------------------------------------------------------------------
def test_key_with_the_scope_acts_as_its_creator(api_client, make_key, office_admin):
    key, plaintext = make_key(scopes=["tools:execute"])
    other = UserFactory()
    # Identity fields in the body are ignored: the key's creator acts.
    response = api_client.post(
        "/t/tools", {"user": other.pk, "user_id": other.pk}, format="json", **bearer(plaintext)
    )
    assert response.status_code == 200
    assert response.json() == {"user": office_admin.pk, "key": key.prefix}


def test_key_without_the_scope_is_refused_naming_it(api_client, make_key):
    _key, plaintext = make_key(scopes=["memory:read", "usage:read"])
    response = api_client.get("/t/tools", **bearer(plaintext))
    assert response.status_code == 403
    body = response.json()
    assert "tools:execute" in body["detail"]
    assert body["code"] == "api_key_scope_missing"
    assert plaintext not in response.content.decode()
    assert api_client.get("/t/memory", **bearer(plaintext)).status_code == 200


def test_view_without_required_scopes_is_closed_to_every_key(api_client, make_key):
    _key, plaintext = make_key(scopes=Scope.values)
    response = api_client.get("/t/unscoped", **bearer(plaintext))
    assert response.status_code == 403
    assert response.json()["code"] == "api_key_endpoint_not_allowed"


def test_session_and_device_token_requests_are_not_limited_by_scopes(api_client, staff):
    api_client.force_login(staff)
    assert api_client.get("/t/tools").json()["user"] == staff.pk
    assert api_client.get("/t/unscoped").status_code == 200
    api_client.logout()
    _token, plaintext = services.issue_device_token(staff, "Phone")
    response = api_client.get("/t/unscoped", HTTP_AUTHORIZATION=f"Token {plaintext}")
    assert response.status_code == 200 and response.json()["user"] == staff.pk


# --- refusals ------------------------------------------------------------------------------------
def test_no_credentials_gives_401_with_a_challenge(api_client):
    response = api_client.get("/t/tools")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "header",
    [
        "Bearer",
        "Bearer a b",
        "Bearer nonsense",
        "Bearer clp_abcdefgh",
        "Bearer clp_abcdefgh.",
        "Bearer clp_ABCDEFGH.secret",
        "Bearer clp_abcdefgh.doesnotexist",
        "Token nonsense",
        "Token cld_abcdefgh.doesnotexist",
    ],
)
def test_malformed_or_unknown_credentials_give_401_without_detail(api_client, header):
    response = api_client.get("/t/tools", HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert "WWW-Authenticate" in response
    body = response.json()
    # The one error shape (DRF's `detail` kept beside `message`), nothing about the credential.
    assert set(body) == {"detail", "code", "message", "details"}
    assert body["message"] == body["detail"] and body["details"] is None
    assert body.get("code", "api_key_invalid") in {
        "api_key_invalid",
        "device_token_invalid",
        "malformed_authorization_header",
    }
    credential = header.partition(" ")[2]
    if credential:
        assert credential not in response.content.decode()


def test_wrong_secret_for_a_real_prefix_is_just_invalid(api_client, make_key):
    key, _plaintext = make_key()
    forged = f"{key.prefix}.{'x' * 43}"
    response = api_client.get("/t/tools", **bearer(forged))
    assert response.status_code == 401
    assert (
        response.json()["detail"]
        == api_client.get("/t/tools", **bearer("clp_zzzzzzzz.nope")).json()["detail"]
    )
    assert forged not in response.content.decode()


def test_revoked_key_is_refused(api_client, make_key, office_admin):
    key, plaintext = make_key()
    assert api_client.get("/t/tools", **bearer(plaintext)).status_code == 200
    services.revoke_api_key(Principal.for_user(office_admin), key_id=key.pk)
    response = api_client.get("/t/tools", **bearer(plaintext))
    assert response.status_code == 401
    assert response.json()["code"] == "api_key_revoked"  # told only to the holder of the secret


def test_expired_key_is_refused(api_client, make_key):
    key, plaintext = make_key(expires_in_days=1)
    assert api_client.get("/t/tools", **bearer(plaintext)).status_code == 200
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api_client.get("/t/tools", **bearer(plaintext)).status_code == 401


def test_key_of_a_deactivated_creator_is_refused(api_client, make_key, office_admin):
    _key, plaintext = make_key()
    office_admin.is_active = False
    office_admin.save(update_fields=["is_active"])
    assert api_client.get("/t/tools", **bearer(plaintext)).status_code == 401


def test_successful_use_records_last_used(api_client, make_key):
    key, plaintext = make_key()
    assert key.last_used_at is None
    api_client.get("/t/tools", **bearer(plaintext))
    key.refresh_from_db()
    assert key.last_used_at is not None


# --- rate limit ---------------------------------------------------------------------------------
def test_per_key_rate_limit_gives_429_with_retry_after(api_client, make_key, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "api_key": "3/min"},
    }
    _key, plaintext = make_key()
    _other, other_plaintext = make_key(name="Other")
    for _ in range(3):
        assert api_client.get("/t/tools", **bearer(plaintext)).status_code == 200
    response = api_client.get("/t/tools", **bearer(plaintext))
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    # Another key has its own budget; sessions are not counted at all.
    assert api_client.get("/t/tools", **bearer(other_plaintext)).status_code == 200
