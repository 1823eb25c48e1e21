"""Stable error codes of the agent runtime: chat-input and run errors. Provider failures are the
model layer's (`apps.llm.errors`)."""

from __future__ import annotations

from apps.core.errors import Conflict, Forbidden, InvalidInput, NotFound


class NoModelConfigured(Conflict):
    """No model provider is set up yet (an admin adds one)."""

    code = "no_model_configured"


class SessionNotFound(NotFound):
    code = "chat_session_not_found"


class RunNotFound(NotFound):
    code = "run_not_found"


class InvalidChatInput(InvalidInput):
    """A chat message, its options or an attachment upload are not usable as sent."""

    code = "invalid_chat_input"


class ChatForbidden(Forbidden):
    code = "chat_forbidden"


class ModelNotFound(NotFound):
    """The inference passthrough was asked for a model (or `moa/<slug>` preset) this instance
    does not offer: 404, as OpenAI's API answers."""

    code = "model_not_found"


class ToolsNotSupported(InvalidInput):
    """The inference passthrough was sent legacy `functions`, or `tools` for a model that cannot
    call tools (tools themselves pass through to the provider; none runs here)."""

    code = "tools_not_supported"


class RunInProgress(InvalidInput):
    """A new message arrived while the copilot is still answering in the same chat (400, as
    clients have always seen it)."""

    code = "run_in_progress"


class CancelUnconfirmed(Conflict):
    """The stop was requested but the run's finalizer did not confirm it in time."""

    code = "cancel_unconfirmed"


class RunNotRetryable(Conflict):
    """ "Try again" was asked for an answer that is not the chat's last one, or that neither
    failed nor was stopped (`details.reason`: `not_last_turn`, `not_failed`)."""

    code = "run_not_retryable"


class AttachmentNotFound(NotFound):
    """An attached document id that does not exist or that the caller may not see."""

    code = "attachment_not_found"


class ChildRunRefused(Forbidden):
    """A run started by another run asked for more than its parent has: another principal, tools
    beyond the parent's allowlist, or a person's presence the parent lacks."""

    code = "child_run_refused"


# Codes a run finishes with that no exception carries (`Run.error_code`), for the error catalog.
RUN_CODES = {
    "worker_lost": (
        "agent",
        "The run's worker died (its lease lapsed); the sweep finished it (apps.agent.leases).",
    ),
}
