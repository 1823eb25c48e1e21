"""The brute-force lockout of every password login (django-axes, configured in settings:
`AXES_*`). Axes counts failures per e-mail + client address; these are its hooks:

* `client_ip`: the client's address as the REST rate limits see it — the socket address, or with
  `CLAPILOT_NUM_PROXIES` trusted proxies the address they name in X-Forwarded-For, so one office
  behind a proxy is not one address, and a client without a proxy cannot choose its address.
* `username`: the e-mail as typed, trimmed and lower-cased (one count however it is spelled).
* `lockout_response`: 429 with Retry-After; the page explains it in the person's language, the
  API answers `{"code": "login_locked", "message", "details": {"retry_after"}}`.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework.settings import api_settings

from apps.accounts.errors import LoginLocked


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
