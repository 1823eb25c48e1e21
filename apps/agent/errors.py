"""Stable error codes of the agent runtime: provider failures and chat-input errors."""

from __future__ import annotations

from apps.core.errors import DomainError, Forbidden, NotFound


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


class NoModelConfigured(DomainError):
    code = "no_model_configured"
    http_status = 409


class SessionNotFound(NotFound):
    code = "chat_session_not_found"


class RunNotFound(NotFound):
    code = "run_not_found"


class InvalidChatInput(DomainError):
    code = "invalid_chat_input"


class ChatForbidden(Forbidden):
    code = "chat_forbidden"


class ModelNotFound(DomainError):
    """The inference passthrough was asked for a model this instance does not offer."""

    code = "model_not_found"


class ToolsNotSupported(DomainError):
    code = "tools_not_supported"


class RunInProgress(DomainError):
    """A new message arrived while the copilot is still answering in the same chat."""

    code = "run_in_progress"


class CancelUnconfirmed(DomainError):
    """The stop was requested but the run's finalizer did not confirm it in time."""

    code = "cancel_unconfirmed"
    http_status = 409


class AttachmentNotFound(NotFound):
    """An attached document id that does not exist or that the caller may not see."""

    code = "attachment_not_found"
