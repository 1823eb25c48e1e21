"""Stable error codes of the agent runtime: chat-input and run errors. Provider failures are the
model layer's (`apps.llm.errors`)."""

from __future__ import annotations

from apps.core.errors import DomainError, Forbidden, NotFound


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
