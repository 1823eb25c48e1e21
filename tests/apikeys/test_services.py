"""Service rules: who may create, validation with stable codes, storage, authentication."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.apikeys import errors, services
from apps.apikeys.models import ApiKey, DeviceToken
from tests.factories import ServicePrincipalFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_create_returns_the_key_once_and_stores_only_a_hash(make_key, office_admin):
    key, plaintext = make_key(scopes=["usage:read", "tools:execute", "usage:read"])
    prefix, _, secret = plaintext.partition(".")
    assert prefix == key.prefix and prefix.startswith("clp_") and len(prefix) == 12
    assert len(secret) >= 40
    assert key.created_by == office_admin
    assert key.scopes == ["tools:execute", "usage:read"]  # canonical order, no duplicates
    row = ApiKey.objects.values().get(pk=key.pk)
    assert secret not in str(row) and plaintext not in str(row)
    assert row["secret_hash"] == services.hash_secret(secret)
    assert services.authenticate_api_key(plaintext) == key


def test_prefixes_are_unique(make_key):
    prefixes = {make_key(name=f"k{i}")[0].prefix for i in range(20)}
    assert len(prefixes) == 20


def test_only_admins_create_keys(staff):
    with pytest.raises(errors.NotAllowed) as exc:
        services.create_api_key(Principal.for_user(staff), name="x", scopes=["memory:read"])
    assert exc.value.code == "apikeys_forbidden"
    with pytest.raises(errors.NotAllowed):
        services.create_api_key(
            Principal.for_service(ServicePrincipalFactory()), name="x", scopes=["memory:read"]
        )
    assert not ApiKey.objects.exists()


@pytest.mark.parametrize(
    ("scopes", "unknown"),
    [(["tools:execute", "admin:all"], ["admin:all"]), (["TOOLS:EXECUTE"], ["TOOLS:EXECUTE"]), ([], [])],
)
def test_scopes_are_validated_with_a_stable_code(office_admin, scopes, unknown):
    with pytest.raises(errors.InvalidScope) as exc:
        services.create_api_key(Principal.for_user(office_admin), name="x", scopes=scopes)
    assert exc.value.code == "apikeys_invalid_scope"
    assert exc.value.unknown == unknown
    for name in unknown:
        assert name in exc.value.message
    assert not ApiKey.objects.exists()


@pytest.mark.parametrize(
    ("name", "days"), [("", None), ("  ", None), ("x" * 101, None), ("ok", 0), ("ok", 4000)]
)
def test_name_and_expiry_are_validated(office_admin, name, days):
    with pytest.raises(errors.InvalidInput) as exc:
        services.create_api_key(
            Principal.for_user(office_admin), name=name, scopes=["memory:read"], expires_in_days=days
        )
    assert exc.value.code == "apikeys_invalid_input"


def test_expiry_is_set_in_days(make_key):
    key, _ = make_key(expires_in_days=30)
    assert timedelta(days=29, hours=23) < key.expires_at - timezone.now() <= timedelta(days=30)


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        (lambda k: ApiKey.objects.filter(pk=k.pk).update(revoked_at=timezone.now()), errors.RevokedApiKey),
        (
            lambda k: ApiKey.objects.filter(pk=k.pk).update(expires_at=timezone.now() - timedelta(minutes=1)),
            errors.ExpiredApiKey,
        ),
        (
            lambda k: type(k.created_by).objects.filter(pk=k.created_by_id).update(is_active=False),
            errors.InactiveKeyOwner,
        ),
    ],
)
def test_authentication_refusals_have_stable_codes(make_key, mutate, error):
    key, plaintext = make_key()
    mutate(key)
    with pytest.raises(error) as exc:
        services.authenticate_api_key(plaintext)
    assert isinstance(exc.value, errors.CredentialError)
    assert plaintext.partition(".")[2] not in exc.value.message


@pytest.mark.parametrize(
    "raw", ["", "x", "clp_", "clp_abc.def", "clp_abcdefgh", "cld_abcdefgh.x", "a" * 500, None]
)
def test_malformed_keys_are_invalid(raw):
    with pytest.raises(errors.InvalidApiKey) as exc:
        services.authenticate_api_key(raw)
    assert exc.value.code == "api_key_invalid"


def test_wrong_secret_of_a_revoked_key_still_reads_invalid(make_key, office_admin):
    key, _ = make_key()
    services.revoke_api_key(Principal.for_user(office_admin), key_id=key.pk)
    with pytest.raises(errors.InvalidApiKey):
        services.authenticate_api_key(f"{key.prefix}.wrong")


def test_last_used_is_written_at_most_once_a_minute(make_key):
    key, plaintext = make_key()
    with CaptureQueriesContext(connection) as first:
        services.authenticate_api_key(plaintext)
    assert [q["sql"].split()[0] for q in first.captured_queries] == ["SELECT", "UPDATE"]
    with CaptureQueriesContext(connection) as second:
        services.authenticate_api_key(plaintext)
    assert [q["sql"].split()[0] for q in second.captured_queries] == ["SELECT"]
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now() - timedelta(minutes=2))
    with CaptureQueriesContext(connection) as later:
        services.authenticate_api_key(plaintext)
    assert [q["sql"].split()[0] for q in later.captured_queries] == ["SELECT", "UPDATE"]


def test_revoke_is_for_admins_and_the_creator_idempotent_and_recorded(make_key, office_admin, staff):
    key, _ = make_key()
    with pytest.raises(errors.KeyNotFound):  # another member's key: not found, ids cannot be probed
        services.revoke_api_key(Principal.for_user(staff), key_id=key.pk)
    other_admin = UserFactory(role="admin")
    revoked = services.revoke_api_key(Principal.for_user(other_admin), key_id=key.pk)
    assert revoked.revoked_at is not None and revoked.revoked_by == other_admin
    first = revoked.revoked_at
    assert services.revoke_api_key(None, prefix=key.prefix).revoked_at == first
    with pytest.raises(errors.KeyNotFound) as exc:
        services.revoke_api_key(None, prefix="clp_nothere1")
    assert exc.value.code == "apikeys_not_found"


def test_secrets_never_reach_the_log(make_key, caplog):
    caplog.set_level("DEBUG")
    key, plaintext = make_key()
    services.authenticate_api_key(plaintext)
    _token, token_plain = services.issue_device_token(key.created_by, "Phone")
    services.authenticate_device_token(token_plain)
    for secret in (plaintext.partition(".")[2], token_plain.partition(".")[2]):
        assert secret not in caplog.text
    assert key.prefix in caplog.text


# --- device tokens -----------------------------------------------------------------------------
def test_device_token_issue_authenticate_revoke(staff):
    token, plaintext = services.issue_device_token(staff, "  Anna's iPhone ")
    assert plaintext.startswith("cld_") and token.device_name == "Anna's iPhone"
    assert services.authenticate_device_token(plaintext) == token
    assert DeviceToken.objects.get(pk=token.pk).last_used_at is not None
    services.revoke_device_token(staff, token.pk)
    with pytest.raises(errors.RevokedDeviceToken):
        services.authenticate_device_token(plaintext)


def test_device_tokens_are_revoked_by_their_owner_only(staff):
    token, plaintext = services.issue_device_token(staff, "Phone")
    with pytest.raises(errors.DeviceTokenNotFound) as exc:
        services.revoke_device_token(UserFactory(), token.pk)
    assert exc.value.code == "device_token_not_found"
    assert services.authenticate_device_token(plaintext) == token


def test_device_token_of_a_deactivated_user_is_refused(staff):
    _token, plaintext = services.issue_device_token(staff, "Phone")
    staff.is_active = False
    staff.save(update_fields=["is_active"])
    with pytest.raises(errors.InactiveTokenOwner):
        services.authenticate_device_token(plaintext)


def test_api_keys_are_not_device_tokens(make_key, staff):
    _key, key_plain = make_key()
    _token, token_plain = services.issue_device_token(staff, "Phone")
    with pytest.raises(errors.InvalidDeviceToken):
        services.authenticate_device_token(key_plain)
    with pytest.raises(errors.InvalidApiKey):
        services.authenticate_api_key(token_plain)


def test_admin_can_sign_out_any_device(office_admin, staff):
    token, _ = services.issue_device_token(staff, "Lost phone")
    with pytest.raises(errors.NotAllowed):
        services.revoke_device_tokens_as_admin(Principal.for_user(staff), [token.pk])
    assert services.revoke_device_tokens_as_admin(Principal.for_user(office_admin), [token.pk]) == 1
    token.refresh_from_db()
    assert token.revoked_at is not None
