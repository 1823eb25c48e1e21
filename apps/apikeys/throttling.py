"""Rate limits.

* `ApiKeyRateThrottle` (scope `api_key`, rate `CLAPILOT_API_KEY_RATE`): per API key, counted
  atomically in the database (`RateWindow`); requests not made with an API key are not counted.
* `LoginFailureThrottle` (scope `login`, rate `CLAPILOT_LOGIN_RATE`): failed password logins per
  client IP + e-mail, in Django's cache (Redis with REDIS_URL, else the database cache). Only
  failures are counted, so a member typing correctly is never slowed down.

Both answer 429 with `Retry-After` through DRF's `Throttled` (code `throttled`).
"""

from __future__ import annotations

import hashlib
import math
import time

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

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


class LoginFailureThrottle(_LiveRateMixin, SimpleRateThrottle):
    """Checked before the login view runs; the view calls `record_failure` after a wrong password."""

    scope = "login"

    def get_cache_key(self, request: Request, view) -> str | None:
        email = str(request.data.get("email", "") if hasattr(request.data, "get") else "")
        # Hashed: cache keys must be short and safe, and should not hold personal data.
        ident = hashlib.sha256(f"{self.get_ident(request)}|{email.strip().lower()}".encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Request, view) -> bool:
        """Refuse once the failure budget is used up, without counting this attempt."""
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        if len(self.history) >= self.num_requests:
            return self.throttle_failure()
        return True

    def record_failure(self, request: Request, view) -> None:
        if self.rate is None:
            return
        key = self.get_cache_key(request, view)
        if key is None:
            return
        now = self.timer()
        history = [t for t in self.cache.get(key, []) if t > now - self.duration]
        history.insert(0, now)
        self.cache.set(key, history, self.duration)
