"""Rate limits.

* `ApiKeyRateThrottle` (scope `api_key`, rate `CLAPILOT_API_KEY_RATE`): per API key, counted
  atomically in the database (`RateWindow`); requests not made with an API key are not counted.
* `LoginFailureThrottle` (scopes `login`, `login_address`, `login_account`; rates
  `CLAPILOT_LOGIN_RATE`, `CLAPILOT_LOGIN_ADDRESS_RATE`, `CLAPILOT_LOGIN_ACCOUNT_RATE`): failed
  device-token logins per client IP + e-mail, per client IP and per account, in Django's cache
  (Redis with REDIS_URL, else the database cache). Only failures are counted, so a member typing
  correctly is never slowed down.

Both answer 429 with `Retry-After` through DRF's `Throttled` (code `throttled`).
"""

from __future__ import annotations

import hashlib
import math
import time

from django.core.cache import cache as default_cache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from apps.accounts import lockout
from apps.apikeys import services
from apps.apikeys.models import ApiKey


class _LiveRateMixin:
    """DRF's SimpleRateThrottle snapshots DEFAULT_THROTTLE_RATES at import time; reading them per
    request lets settings overrides (tests, reloads) take effect."""

    scope: str

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


def _now() -> float:
    return time.time()


class ApiKeyRateThrottle(_LiveRateMixin, BaseThrottle):
    """At most N requests per key in a window of the rate's period, the window starting with the
    key's first request after the last one ended. The count is one atomic upsert in the database
    (`services.count_api_request`), shared by every process and thread: DRF's cache-based history
    (read, append, write back) lost most updates when one key's requests ran in parallel."""

    scope = "api_key"
    parse_rate = SimpleRateThrottle.parse_rate

    def allow_request(self, request: Request, view) -> bool:
        self.retry_after: int | None = None
        key = request.auth
        rate = self.get_rate()
        if not isinstance(key, ApiKey) or rate is None:
            return True
        limit, period = self.parse_rate(rate)
        now = _now()
        hits, started_at = services.count_api_request(key, period=period, now=now)
        if hits <= limit:
            return True
        self.retry_after = max(1, math.ceil(started_at + period - now))
        return False

    def wait(self) -> float | None:
        return self.retry_after


class LoginFailureThrottle(BaseThrottle):
    """Failed device-token logins, counted in three buckets, each with its own rate: per client
    address + e-mail (`login`), per client address (`login_address`, any e-mail) and per account
    (`login_account`, any address). Checked before the login view runs, refused (without counting)
    once any bucket is full; the view calls `record_failure` after a wrong password. A known
    device of the account (`apps.accounts.lockout.known_device`) skips the address and account
    buckets, so nobody can throttle a colleague's own app. These counts never lock the web login."""

    BUCKETS = ("login", "login_address", "login_account")
    cache = default_cache
    timer = staticmethod(time.time)

    def _buckets(self, request: Request) -> list[tuple[str, int, float]]:
        email = str(request.data.get("email", "") if hasattr(request.data, "get") else "").strip().lower()
        address = self.get_ident(request) or ""  # none known (e.g. a WSGI server without one)
        idents = {"login": f"{address}|{email}", "login_address": address, "login_account": email}
        if lockout.known_device(request._request, email) is not None:
            del idents["login_address"], idents["login_account"]
        buckets = []
        for scope, ident in idents.items():
            rate = api_settings.DEFAULT_THROTTLE_RATES.get(scope)
            if rate is None:
                continue
            num, duration = SimpleRateThrottle.parse_rate(None, rate)  # type: ignore[arg-type]
            # Hashed: cache keys must be short and safe, and should not hold personal data.
            digest = hashlib.sha256(ident.encode()).hexdigest()
            buckets.append((f"throttle_{scope}_{digest}", num, duration))
        return buckets

    def _recent(self, key: str, duration: float, now: float) -> list[float]:
        return [t for t in self.cache.get(key, []) if t > now - duration]

    def allow_request(self, request: Request, view) -> bool:
        self.retry_after: float | None = None
        now = self.timer()
        for key, num, duration in self._buckets(request):
            history = self._recent(key, duration, now)  # newest first
            if len(history) >= num:
                wait = history[num - 1] + duration - now
                self.retry_after = max(self.retry_after or 0.0, wait)
        return self.retry_after is None

    def wait(self) -> float | None:
        return self.retry_after

    def record_failure(self, request: Request, view) -> None:
        now = self.timer()
        for key, num, duration in self._buckets(request):
            history = [now, *self._recent(key, duration, now)][:num]
            self.cache.set(key, history, math.ceil(duration))
