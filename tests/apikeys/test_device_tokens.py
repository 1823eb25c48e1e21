"""POST /api/v1/auth/token, GET /api/v1/auth/tokens, DELETE /api/v1/auth/tokens/<id>."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.apikeys import services
from apps.apikeys.models import DeviceToken
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

TOKEN_URL = "/api/v1/auth/token"
TOKENS_URL = "/api/v1/auth/tokens"


def login(client, email, password=PASSWORD, device="Anna's iPhone", **extra):
    return client.post(
        TOKEN_URL, {"email": email, "password": password, "device_name": device}, format="json", **extra
    )


def test_login_issues_a_token_that_authenticates(staff):
    client = APIClient(enforce_csrf_checks=True)  # no cookie auth here, so no CSRF token is needed
    response = login(client, staff.email.upper())
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"token", "id", "device_name"}
    assert body["device_name"] == "Anna's iPhone" and body["token"].startswith("cld_")
    assert response["Cache-Control"] == "no-store"
    listed = client.get(TOKENS_URL, HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert listed.status_code == 200
    [row] = listed.json()["results"]
    assert row["id"] == body["id"] and row["current"] is True
    assert "token" not in row and body["token"] not in listed.content.decode()


@pytest.mark.parametrize("case", ["wrong_password", "unknown_email", "inactive"])
def test_wrong_credentials_give_one_generic_400(api_client, staff, case):
    if case == "inactive":
        staff.is_active = False
        staff.save(update_fields=["is_active"])
    email = "nobody@kanzlei.example" if case == "unknown_email" else staff.email
    password = "wrong" if case == "wrong_password" else PASSWORD
    response = login(api_client, email, password)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_credentials" and body["message"]
    assert not DeviceToken.objects.exists()


def test_missing_fields_are_reported_per_field(api_client):
    response = api_client.post(TOKEN_URL, {"email": "a@b.example"}, format="json")
    assert response.status_code == 400
    assert {"password", "device_name"} <= set(response.json())


def test_failed_logins_are_throttled_per_ip_and_email(api_client, staff, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "3/min"},
    }
    for _ in range(3):
        assert login(api_client, staff.email, "wrong").status_code == 400
    blocked = login(api_client, staff.email)  # even the right password waits now
    assert blocked.status_code == 429
    assert 0 < int(blocked["Retry-After"]) <= 60
    assert not DeviceToken.objects.exists()
    # Another e-mail, or the same e-mail from another address, is not blocked.
    other = UserFactory()
    assert login(api_client, other.email).status_code == 201
    assert login(api_client, staff.email, REMOTE_ADDR="10.9.8.7").status_code == 201
    # A spoofed X-Forwarded-For does not open a fresh budget (no trusted proxy by default).
    assert login(api_client, staff.email, HTTP_X_FORWARDED_FOR="1.2.3.4").status_code == 429


def test_successful_logins_are_not_counted(api_client, staff, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "2/min"},
    }
    for i in range(4):
        assert login(api_client, staff.email, device=f"Device {i}").status_code == 201


def test_list_shows_only_own_active_tokens(api_client, staff):
    mine, plaintext = services.issue_device_token(staff, "Phone")
    old, _ = services.issue_device_token(staff, "Old tablet")
    services.revoke_device_token(staff, old.pk)
    services.issue_device_token(UserFactory(), "Someone else's phone")
    response = api_client.get(TOKENS_URL, HTTP_AUTHORIZATION=f"Token {plaintext}")
    assert [row["id"] for row in response.json()["results"]] == [mine.pk]


def test_session_user_may_list_tokens_too(api_client, staff):
    services.issue_device_token(staff, "Phone")
    api_client.force_login(staff)
    response = api_client.get(TOKENS_URL)
    assert response.status_code == 200
    assert response.json()["results"][0]["current"] is False


def test_owner_revokes_a_token_and_it_stops_working(api_client, staff):
    phone, phone_plain = services.issue_device_token(staff, "Phone")
    laptop, laptop_plain = services.issue_device_token(staff, "Laptop")
    response = api_client.delete(f"{TOKENS_URL}/{laptop.pk}", HTTP_AUTHORIZATION=f"Token {phone_plain}")
    assert response.status_code == 204
    assert api_client.get(TOKENS_URL, HTTP_AUTHORIZATION=f"Token {laptop_plain}").status_code == 401
    # Signing out the current device works the same way.
    assert (
        api_client.delete(f"{TOKENS_URL}/{phone.pk}", HTTP_AUTHORIZATION=f"Token {phone_plain}").status_code
        == 204
    )
    assert api_client.get(TOKENS_URL, HTTP_AUTHORIZATION=f"Token {phone_plain}").status_code == 401


def test_another_users_token_id_is_not_found(api_client, staff):
    _mine, plaintext = services.issue_device_token(staff, "Phone")
    theirs, their_plain = services.issue_device_token(UserFactory(), "Their phone")
    response = api_client.delete(f"{TOKENS_URL}/{theirs.pk}", HTTP_AUTHORIZATION=f"Token {plaintext}")
    assert response.status_code == 404
    assert response.json()["code"] == "device_token_not_found"
    assert services.authenticate_device_token(their_plain) == theirs


def test_token_endpoints_need_authentication_and_refuse_api_keys(api_client, make_key):
    assert api_client.get(TOKENS_URL).status_code == 401
    _key, plaintext = make_key(scopes=["tools:execute", "memory:read"])
    assert api_client.get(TOKENS_URL, HTTP_AUTHORIZATION=f"Bearer {plaintext}").status_code == 403


def test_schema_documents_the_auth_endpoints(api_client, office_admin):
    api_client.force_login(office_admin)
    response = api_client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    for path in ("/api/v1/auth/token", "/api/v1/auth/tokens", "/api/v1/auth/tokens/{token_id}"):
        assert path in schema["paths"], path
    assert schema["paths"]["/api/v1/auth/token"]["post"]["operationId"] == "auth_token_create"
    assert {"apiKey", "deviceToken"} <= set(schema["components"]["securitySchemes"])
