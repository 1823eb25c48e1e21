"""Codes of the tool framework: the dispatcher's result envelope and the catalog meta-tools."""

from __future__ import annotations

from apps.core.errors import DomainError, InvalidInput, NotFound


class UnknownFamily(NotFound):
    """`tool_catalog_expand` / `request_toolbox` named a family that does not exist."""

    code = "unknown_family"


class InvalidArguments(InvalidInput):
    """The arguments do not match the tool's schema (`output` has field errors), or a meta-tool
    got arguments it cannot use (e.g. `tool_execute` calling itself)."""

    code = "invalid_arguments"


class ForwardedToolFailure(DomainError):
    """`tool_execute` hands the inner tool's failure on unchanged, code and all."""

    code = "tool_call_failed"

    def __init__(self, message: str, *, code: str, details=None) -> None:
        super().__init__(message, details=details)
        self.code = code


# Codes the dispatcher answers with directly (no exception class); the seed contract spells
# three of them in capitals and clients branch on them, so they keep that spelling.
ENVELOPE_CODES = {
    "unknown_tool": ("tools", "There is no tool of that name."),
    "module_not_installed": ("tools", "`module_not_installed:<slug>`: the tool's module is not installed."),
    "aborted": ("agent", "The run was stopped while the tool was running."),
    "CLAPILOT_TOOL_EXECUTION_FAILED": ("tools", "A tool failed unexpectedly (logged with a traceback)."),
    "CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED": ("tools", "A tool's output could not be serialized."),
    "CLAPILOT_NO_USER_CONTEXT": ("tools", "The tool needs a signed-in person, and the call has none."),
    # The approval step (apps.tools.approval).
    "approval_required": ("tools", "The call waits for a person's approval (`output.staged_id`); HTTP 202."),
    "approval_forbidden": ("tools", "The agent's policy forbids this tool or operation (verboten)."),
    "approval_unavailable_headless": (
        "tools",
        "Nobody is present to approve the call: not executed, recorded for its owner (or refused).",
    ),
    # `POST /api/v1/tools/execute` answers its own request errors in the same envelope (and
    # `payload_too_large`, declared in apps.core.errors).
    "invalid_json": ("tools", "The execute request's body is not valid JSON (400)."),
    "idempotency_key_reused": ("tools", "The idempotency key was already used for another call (409)."),
    "idempotency_in_progress": ("tools", "The first call with this idempotency key is still running (409)."),
}
