"""The only place that changes API keys and device tokens.

Key format: `<prefix>.<secret>`. The prefix (`clp_` + 8 chars for API keys, `cld_` + 8 chars for
device tokens) is public and indexed; the secret is 32 random bytes, url-safe base64, stored only
as its SHA-256 hex digest and compared in constant time. The plaintext leaves this module exactly
once, as the second element of the tuple a create/issue function returns.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import logging
import secrets
import string
from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.apikeys import errors
from apps.apikeys.models import ApiKey, DeviceToken, RateWindow, Scope
from apps.core.db.prepared import Prepared

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.accounts.principal import Principal

logger = logging.getLogger(__name__)

API_KEY_PREFIX = "clp_"
DEVICE_TOKEN_PREFIX = "cld_"  # noqa: S105 (a public marker, not a secret)
_PREFIX_ALPHABET = string.ascii_lowercase + string.digits
_PREFIX_RANDOM_LENGTH = 8
_SECRET_BYTES = 32
# last_used_at is a hint for humans ("used 3 minutes ago"), not an audit log: writing it on every
# request would turn each read into a write, so it is refreshed at most this often.
LAST_USED_RESOLUTION = timedelta(minutes=1)
MAX_NAME_LENGTH = 100
MAX_EXPIRY_DAYS = 3650

# Compared against when the prefix is unknown, so that unknown and wrong keys cost the same time.
_DUMMY_HASH = hashlib.sha256(b"clapilot-no-such-key").hexdigest()


# --- helpers ---------------------------------------------------------------------------------
def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _random_prefix(kind: str) -> str:
    return kind + "".join(secrets.choice(_PREFIX_ALPHABET) for _ in range(_PREFIX_RANDOM_LENGTH))


def _split(raw: str, kind: str) -> tuple[str, str] | None:
    """`clp_xxxxxxxx.secret` → (prefix, secret); None when the shape is wrong."""
    if not isinstance(raw, str) or len(raw) > 200:
        return None
    prefix, dot, secret = raw.strip().partition(".")
    if (
        not dot
        or not secret
        or not prefix.startswith(kind)
        or len(prefix) != len(kind) + _PREFIX_RANDOM_LENGTH
        or any(c not in _PREFIX_ALPHABET for c in prefix[len(kind) :])
    ):
        return None
    return prefix, secret


def _matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), stored_hash)


def _presented(raw: str, kind: str, by_prefix: Prepared, hash_field: str, invalid: type[Exception]) -> Any:
    """The row whose prefix and secret `raw` presents, else `invalid()`: an unknown prefix still
    costs one hash comparison, so a wrong and an unknown credential take the same time."""
    parts = _split(raw, kind)
    if parts is None:
        raise invalid()
    prefix, secret = parts
    row = by_prefix.first(prefix=prefix)
    if row is None:
        _matches(secret, _DUMMY_HASH)
        raise invalid()
    if not _matches(secret, getattr(row, hash_field)):
        raise invalid()
    return row


def _require_admin(principal: Principal) -> User:
    """API keys are an admin control-plane credential (never an agent tool, never staff-made)."""
    user = principal.user if principal is not None else None
    if user is None or not user.is_active or not user.is_admin:
        raise errors.NotAllowed()
    return user


def _touch(model: type[ApiKey] | type[DeviceToken], row: ApiKey | DeviceToken) -> None:
    """Refresh last_used_at with at most one UPDATE per minute per credential; the WHERE clause
    keeps concurrent requests in several processes from all writing."""
    now = timezone.now()
    if row.last_used_at is not None and now - row.last_used_at < LAST_USED_RESOLUTION:
        return
    stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
    model.objects.filter(stale, pk=row.pk).update(last_used_at=now)
    row.last_used_at = now


def _in_use(model: Any, row: Any, owner: User, inactive: type[Exception]) -> Any:
    """A presented credential that passed its own checks: refused (`inactive`) when the account
    it acts for is deactivated, else its use is recorded (`_touch`) and it is returned."""
    if not owner.is_active:
        raise inactive()
    _touch(model, row)
    return row


def _create_with_unique_prefix(model, kind: str, hash_field: str, **fields) -> tuple[object, str]:
    """Insert a row with a fresh random prefix; retry on the (astronomically rare) collision."""
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    for _attempt in range(5):
        prefix = _random_prefix(kind)
        try:
            with transaction.atomic():
                row = model.objects.create(prefix=prefix, **{hash_field: hash_secret(secret)}, **fields)
        except IntegrityError:
            if model.objects.filter(prefix=prefix).exists():
                continue
            raise
        return row, f"{prefix}.{secret}"
    raise RuntimeError("could not allocate a unique credential prefix")


# --- API keys --------------------------------------------------------------------------------
def validate_scopes(scopes: Iterable[str]) -> list[str]:
    """Known scopes only, at least one, de-duplicated in the canonical order."""
    requested = [s.strip() for s in scopes if s and s.strip()]
    unknown = sorted({s for s in requested if s not in Scope.values})
    if unknown:
        raise errors.InvalidScope(unknown)
    if not requested:
        raise errors.InvalidScope(message=_("Choose at least one scope."))
    return [s for s in Scope.values if s in requested]


def _validate_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise errors.InvalidInput(_("A name is required."))
    if len(name) > MAX_NAME_LENGTH:
        raise errors.InvalidInput(_("The name may have at most %(n)d characters.") % {"n": MAX_NAME_LENGTH})
    return name


@transaction.atomic
def create_api_key(
    principal: Principal,
    *,
    name: str,
    scopes: Iterable[str],
    expires_in_days: int | None = None,
) -> tuple[ApiKey, str]:
    """An admin mints a key that will act as themselves. Returns the row and the plaintext key,
    which is never retrievable again."""
    creator = _require_admin(principal)
    name = _validate_name(name)
    scope_list = validate_scopes(scopes)
    expires_at = None
    if expires_in_days is not None:
        if not isinstance(expires_in_days, int) or not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
            raise errors.InvalidInput(
                _("The expiry must be between 1 and %(max)d days.") % {"max": MAX_EXPIRY_DAYS}
            )
        expires_at = timezone.now() + timedelta(days=expires_in_days)
    key, plaintext = _create_with_unique_prefix(
        ApiKey,
        API_KEY_PREFIX,
        "secret_hash",
        name=name,
        created_by=creator,
        scopes=scope_list,
        expires_at=expires_at,
    )
    logger.info("API key %s created by user %s with scopes %s", key.prefix, creator.pk, ",".join(scope_list))
    return key, plaintext


def visible_api_keys(principal: Principal | None) -> QuerySet[ApiKey]:
    """The keys a person may see and revoke, newest first: an administrator every key of the
    instance, anyone else the keys they created (a creator who is no longer an administrator
    still sees and can revoke them). `principal=None` is the operator at the server's shell."""
    rows = ApiKey.objects.select_related("created_by", "revoked_by").order_by("-created_at")
    if principal is None:
        return rows
    user = principal.user
    if user is None or not user.is_active:
        return rows.none()
    return rows if user.is_admin else rows.filter(created_by=user)


@transaction.atomic
def revoke_api_key(
    principal: Principal | None, *, key_id: int | None = None, prefix: str | None = None
) -> ApiKey:
    """Revoke a key at once: an administrator any key of the instance, its creator their own (also
    after they stopped being an administrator); another member's key is not found, so key ids
    cannot be probed. `principal=None` is the operator at the server's shell (management command).
    Revoking twice is harmless."""
    revoker = principal.user if principal is not None else None
    if (key_id is None) == (prefix is None):
        raise ValueError("pass exactly one of key_id or prefix")
    lookup = {"pk": key_id} if key_id is not None else {"prefix": (prefix or "").strip()}
    key = visible_api_keys(principal).select_for_update(of=("self",)).filter(**lookup).first()
    if key is None:
        raise errors.KeyNotFound()
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.revoked_by = revoker
        key.save(update_fields=["revoked_at", "revoked_by"])
        logger.info(
            "API key %s revoked by %s", key.prefix, f"user {revoker.pk}" if revoker else "the operator"
        )
    return key


# The lookups of every authenticated API request, compiled once (apps.core.db.prepared): the row
# is read anew on each request, so a revoked or expired key, or a deactivated creator, is refused
# on the very next request.
_API_KEY_BY_PREFIX = Prepared(
    lambda prefix: ApiKey.objects.select_related("created_by").filter(prefix=prefix)[:1], prefix=str
)
_DEVICE_TOKEN_BY_PREFIX = Prepared(
    lambda prefix: DeviceToken.objects.select_related("user").filter(prefix=prefix)[:1], prefix=str
)


def authenticate_api_key(raw: str) -> ApiKey:
    """Resolve a presented key to its active row (creator loaded), or raise a CredentialError.

    Why a key was refused (revoked, expired, owner inactive) is only told to a caller who holds
    the correct secret; a wrong or unknown key always reads `api_key_invalid`."""
    key = _presented(raw, API_KEY_PREFIX, _API_KEY_BY_PREFIX, "secret_hash", errors.InvalidApiKey)
    if key.is_revoked:
        raise errors.RevokedApiKey()
    if key.is_expired:
        raise errors.ExpiredApiKey()
    return _in_use(ApiKey, key, key.created_by, errors.InactiveKeyOwner)


# One statement per request: the row is created, or its window restarted, or its count raised,
# under the row lock PostgreSQL takes for the upsert, so no two requests read the same count.
# (In SET every column still names the row's value before this statement.)
_COUNT_SQL = f"""
INSERT INTO {RateWindow._meta.db_table} AS w (api_key_id, started_at, hits) VALUES (%(key)s, %(now)s, 1)
ON CONFLICT (api_key_id) DO UPDATE SET
    started_at = CASE WHEN w.started_at <= %(expired)s THEN EXCLUDED.started_at ELSE w.started_at END,
    hits = CASE WHEN w.started_at <= %(expired)s THEN 1 ELSE w.hits + 1 END
RETURNING hits, started_at
"""  # noqa: S608 (the table name is the model's own; every value is a parameter)


def count_api_request(key: ApiKey, *, period: float, now: float) -> tuple[int, float]:
    """Count one request of `key` in its current window of `period` seconds (a window starts with
    the first request after the previous one ended). Returns the requests counted in the window,
    this one included, and the window's start (both epoch seconds)."""
    params = {
        "key": key.pk,
        "now": dt.datetime.fromtimestamp(now, tz=dt.UTC),
        "expired": dt.datetime.fromtimestamp(now - period, tz=dt.UTC),
    }
    with connection.cursor() as cursor:
        cursor.execute(_COUNT_SQL, params)
        hits, started_at = cursor.fetchone()
    return hits, started_at.timestamp()


# --- device tokens ---------------------------------------------------------------------------
def _validate_device_name(device_name: str) -> str:
    device_name = (device_name or "").strip()
    if not device_name:
        raise errors.InvalidInput(_("A device name is required."))
    if len(device_name) > MAX_NAME_LENGTH:
        raise errors.InvalidInput(
            _("The device name may have at most %(n)d characters.") % {"n": MAX_NAME_LENGTH}
        )
    return device_name


@transaction.atomic
def issue_device_token(user: User, device_name: str) -> tuple[DeviceToken, str]:
    """After a successful password check: a token for one of the user's own devices. Returns the
    row and the plaintext token, shown once."""
    if not user.is_active:
        raise errors.InactiveTokenOwner()
    device_name = _validate_device_name(device_name)
    token, plaintext = _create_with_unique_prefix(
        DeviceToken, DEVICE_TOKEN_PREFIX, "token_hash", user=user, device_name=device_name
    )
    logger.info("Device token %s issued to user %s", token.prefix, user.pk)
    return token, plaintext


@transaction.atomic
def revoke_device_token(user: User, token_id: int) -> DeviceToken:
    """A user signs one of their own devices out. Someone else's token is reported as not found,
    so token ids of other users cannot be probed."""
    token = DeviceToken.objects.select_for_update().filter(pk=token_id, user=user).first()
    if token is None:
        raise errors.DeviceTokenNotFound()
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        logger.info("Device token %s revoked by its owner %s", token.prefix, user.pk)
    return token


@transaction.atomic
def revoke_device_tokens_as_admin(principal: Principal, token_ids: Iterable[int]) -> int:
    """The control plane signs devices out (e.g. a lost phone reported to the office)."""
    admin = _require_admin(principal)
    now = timezone.now()
    count = DeviceToken.objects.filter(pk__in=list(token_ids), revoked_at__isnull=True).update(revoked_at=now)
    logger.info("%d device token(s) revoked by admin %s", count, admin.pk)
    return count


def authenticate_device_token(raw: str) -> DeviceToken:
    """Resolve a presented device token to its active row (user loaded), or raise."""
    token = _presented(
        raw, DEVICE_TOKEN_PREFIX, _DEVICE_TOKEN_BY_PREFIX, "token_hash", errors.InvalidDeviceToken
    )
    if token.is_revoked:
        raise errors.RevokedDeviceToken()
    return _in_use(DeviceToken, token, token.user, errors.InactiveTokenOwner)
