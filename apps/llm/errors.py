"""Stable error codes of model calls. Every failure of a provider becomes one of these, with a
message that never contains the key or the provider's response body."""

from __future__ import annotations

from apps.core.errors import DomainError


class ProviderError(DomainError):
    """A model call failed. The message never contains the provider's key or raw response body."""

    code = "provider_error"
    http_status = 502


class ProviderUnreachable(ProviderError):
    code = "provider_unreachable"


class ProviderAuthFailed(ProviderError):
    code = "provider_auth"


class ProviderRateLimited(ProviderError):
    code = "provider_rate_limited"
    http_status = 429


class ProviderTimeout(ProviderError):
    code = "provider_timeout"
    http_status = 504
