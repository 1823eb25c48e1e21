"""The brute-force lockout of the password logins (django-axes, configured in settings: `AXES_*`).

Failures on the web logins (/accounts/login/, /admin/login/) are counted twice, separately: per
account (the e-mail, from any address: CLAPILOT_LOGIN_FAILURE_LIMIT) and per client address (any
e-mail: CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT). Either count at its limit locks for the cool-off.
So that nobody can lock a colleague out by typing wrong passwords with their e-mail:

* a **known device** — a browser or app that signed in to that account before and got a signed
  cookie for it (`remember_device`) — passes the lock with the right password. Its own wrong
  passwords are counted per device (`DEVICE_FAILURES`): a stolen cookie buys no extra guesses.
* the cool-off is short (CLAPILOT_LOGIN_COOLOFF_MINUTES), and a success clears only that
  account's failures (never the address's count made with other e-mails).
* the device-token login (`POST /api/v1/auth/token`) is not counted here at all: it has its own
  failure throttles (`apps.apikeys.throttling.LoginFailureThrottle`) and only *respects* a lock,
  so wrong passwords sent there never lock anyone out of the web login.

Axes' hooks:

* `client_ip`: the client's address as the REST rate limits see it — the socket address, or with
  `CLAPILOT_NUM_PROXIES` trusted proxies the address they name in X-Forwarded-For, so one office
  behind a proxy is not one address, and a client without a proxy cannot choose its address.
* `username`: the e-mail as typed, trimmed and lower-cased (one count however it is spelled).
* `lockout_response`: 429 with Retry-After; the page explains it in the person's language, the
  API answers `{"code": "login_locked", "message", "details": {"retry_after"}}`.
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit, get_lockout_parameters
from axes.models import AccessAttempt
from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.crypto import get_random_string, salted_hmac
from rest_framework.settings import api_settings

from apps.accounts.errors import LoginLocked

TOKEN_LOGIN_PATH = "/api/v1/auth/token"  # noqa: S105 (a URL path)
DEVICE_SALT = "clapilot.accounts.known-device"
DEVICE_COOKIE_PREFIX = "clapilot_device_"
DEVICE_FAILURES = "clapilot:login-device:%s"  # cache key: wrong passwords from one known device


def client_ip(request: HttpRequest) -> str | None:
    """DRF's `BaseThrottle.get_ident` rule (the same address the rate limits count)."""
    remote = request.META.get("REMOTE_ADDR")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    proxies = api_settings.NUM_PROXIES or 0
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    return hops[-min(proxies, len(hops))] if hops else remote


def username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    value = (credentials or {}).get("username")
    if value is None:
        data = getattr(request, "data", None) or getattr(request, "POST", {})
        value = data.get("username") or data.get("email")
    value = str(value or "").strip().lower()
    return value or None


def retry_after(request: HttpRequest | None = None) -> int:
    from axes.helpers import get_cool_off

    cool_off = get_cool_off(request)
    return int(cool_off.total_seconds()) if cool_off else 0


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """Axes' answer to a locked-out login (AXES_LOCKOUT_CALLABLE). Axes' async middleware calls it
    with (request, credentials), the sync one with (request, response, credentials): only the
    request is used."""
    error = LoginLocked(retry_after(request))
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {"code": error.code, "message": error.message, "details": error.details}, status=error.http_status
        )
    else:
        response = render(request, "registration/locked.html", {"message": error.message}, status=429)
    response["Retry-After"] = str(error.retry_after)
    response["Cache-Control"] = "no-store"
    return response


# --- two counts: per account and per address ------------------------------------------------
class LockoutHandler(AxesDatabaseHandler):
    """Axes' database handler with a limit per lockout parameter: AXES_FAILURE_LIMIT for the
    account ("username"), CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT for the client address. Axes
    compares one number with one limit, so each count is scaled to AXES_FAILURE_LIMIT: the
    answer reaches that limit exactly when one count reaches its own."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        limit = get_failure_limit(request, credentials)
        parameters = get_lockout_parameters(request, credentials)
        worst = 0
        for parameter, attempts in zip(parameters, self.get_user_attempts(request, credentials), strict=True):
            count = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            own = settings.CLAPILOT_LOGIN_ADDRESS_FAILURE_LIMIT if parameter == "ip_address" else limit
            worst = max(worst, count * limit // max(own, 1))
        return worst


def is_token_login(request: HttpRequest) -> bool:
    return request.path == TOKEN_LOGIN_PATH


def exempt(request: HttpRequest, credentials: dict | None = None) -> bool:
    """AXES_WHITELIST_CALLABLE: not counted and not locked by axes. The device-token login counts
    its failures itself (and checks the lock itself, `token_login_locked`); a known device of the
    account passes while its own failure budget lasts."""
    if is_token_login(request):
        return True
    return known_device(request, username(request, credentials)) is not None


def token_login_locked(request: HttpRequest, email: str) -> bool:
    """Is the account or the address locked by the web logins' failures (for the token login,
    which axes does not count)? A known device of the account is not."""
    from axes.handlers.proxy import AxesProxyHandler

    credentials = {"username": email}
    if known_device(request, username(request, credentials)) is not None:
        return False
    return AxesProxyHandler.is_locked(request, credentials)


# --- known devices --------------------------------------------------------------------------
def _account_key(email: str) -> str:
    """A keyed digest of the e-mail: names the cookie without showing (or letting anyone derive)
    the address."""
    return salted_hmac(DEVICE_SALT, email.strip().lower()).hexdigest()[:20]


def device_cookie_name(email: str) -> str:
    return DEVICE_COOKIE_PREFIX + _account_key(email)[:12]


def known_device(request: HttpRequest, email: str | None) -> str | None:
    """The device id when the request carries this account's device cookie (signed, not
    expired) and that device has not used up its own failure budget; else None."""
    if not email:
        return None
    raw = request.COOKIES.get(device_cookie_name(email))
    if not raw:
        return None
    max_age = settings.CLAPILOT_KNOWN_DEVICE_DAYS * 86400
    try:
        value = signing.loads(raw, salt=DEVICE_SALT, max_age=max_age)
    except signing.BadSignature:
        return None
    if not isinstance(value, dict) or value.get("a") != _account_key(email):
        return None
    device = str(value.get("d") or "")
    if not device or (cache.get(DEVICE_FAILURES % device) or 0) >= settings.AXES_FAILURE_LIMIT:
        return None
    return device


def remember_device(request: HttpRequest, email: str) -> None:
    """Mark the response to this request to carry the account's device cookie (set by
    `KnownDeviceMiddleware`, or by a view that answers itself: `set_device_cookie`)."""
    request._clapilot_known_device = email  # type: ignore[attr-defined]


def set_device_cookie(request: HttpRequest, response: HttpResponse, email: str) -> None:
    name = device_cookie_name(email)
    value = {"a": _account_key(email), "d": known_device(request, email) or get_random_string(24)}
    response.set_cookie(
        name,
        signing.dumps(value, salt=DEVICE_SALT),
        max_age=settings.CLAPILOT_KNOWN_DEVICE_DAYS * 86400,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


class KnownDeviceMiddleware:
    """Sets the device cookie on the answer to a successful password login."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        email = getattr(request, "_clapilot_known_device", None)
        if email:
            set_device_cookie(request, response, email)
        return response


def on_login_failed(sender, credentials: dict, request: HttpRequest | None = None, **kwargs) -> None:
    """user_login_failed: a wrong password from a known device counts against that device."""
    if request is None:
        return
    device = known_device(request, username(request, credentials))
    if device is None:
        return
    key = DEVICE_FAILURES % device
    timeout = int(retry_after(request)) or 900
    if cache.add(key, 1, timeout):
        return
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout)


def on_logged_in(sender, request: HttpRequest | None, user, **kwargs) -> None:
    """user_logged_in: clear this account's failures (only its own: the failures made from the
    same address with other e-mails still count), and remember the device for a password login."""
    email = username(request, {"username": user.get_username()}) if request is not None else None
    if not email:
        return
    AccessAttempt.objects.filter(username=email).delete()
    # Only a login that checked a password makes a known device (not a password reset's
    # automatic login); the token login sets its cookie itself (it logs nobody in).
    if request.method == "POST" and request.POST.get("password"):
        remember_device(request, email)
