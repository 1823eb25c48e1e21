"""How a stopped or failed run is told to the person: a stable reason code and a sentence in the
reader's language. The page, the socket, SSE and REST show the same outcome; the text is chosen
when it is shown (the reader's language), the stored `Run.error_message` (the run's language,
with details such as the provider's name) is the fallback for codes without a sentence here."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from apps.agent import guards

if TYPE_CHECKING:  # the models' properties call this module: no import back at run time
    from apps.agent.models import Message, Run

CANCELLED = "cancelled"  # the reason code of a run the person stopped
# Run.Status values, spelled out (see the import above).
FAILED, CANCELLED_STATUS = "failed", "cancelled"
RETRYABLE = frozenset({FAILED, CANCELLED_STATUS})

_TEXTS = {
    CANCELLED: pgettext_lazy("chat outcome", "Stopped."),
    "provider_unreachable": gettext_lazy("The language model cannot be reached at the moment."),
    "provider_timeout": gettext_lazy("The language model did not answer in time."),
    "provider_rate_limited": gettext_lazy("The language model is busy (too many requests)."),
    "provider_auth": gettext_lazy(
        "The language model refused the access key. An administrator needs to check the provider."
    ),
    "provider_error": gettext_lazy("The language model answered with an error."),
    "no_model_configured": gettext_lazy("No language model is configured."),
    "worker_lost": gettext_lazy("The copilot stopped unexpectedly (for example during a restart)."),
    guards.TOOL_LOOP_DETECTED: gettext_lazy("The copilot repeated the same step and was stopped."),
    guards.PHASE_BUDGET_EXCEEDED: gettext_lazy("The tools took longer than allowed in a chat."),
    "CLAPILOT_AGENT_INTERNAL_ERROR": gettext_lazy("The copilot failed unexpectedly."),
    "forbidden": gettext_lazy("The identity this answer acts as is disabled."),
}


def reason(run: Run) -> str:
    """The stable reason code of a stopped or failed run; empty for any other status."""
    if run.status == CANCELLED_STATUS:
        return CANCELLED
    if run.status == FAILED:
        return run.error_code or "failed"
    return ""


def text(run: Run) -> str:
    """The sentence for the reader (in the active language); empty when the run did not stop or fail."""
    code = reason(run)
    if not code:
        return ""
    known = _TEXTS.get(code)
    if known is not None:
        return str(known)
    return run.error_message or _("The answer failed.")


def record(run: Run) -> dict | None:
    """`{status, code, message}` of a stopped or failed run, None otherwise (REST, socket, page)."""
    code = reason(run)
    if not code:
        return None
    return {"status": run.status, "code": code, "message": text(run)}


def status_payload(run: Run) -> dict:
    """The STATUS event of a run's new status: what the page and SSE clients show at once."""
    payload: dict = {"status": run.status, "error_code": run.error_code or ""}
    outcome = record(run)
    if outcome is not None:
        payload.update(reason=outcome["code"], message=outcome["message"])
    return payload


def tool_error(message: Message) -> dict | None:
    """The code and message of a failed tool call from its stored result (None when it
    succeeded or waits for an approval)."""
    meta = message.metadata or {}
    code = meta.get("code") or ""
    if meta.get("ok", True) or code == "approval_required":
        return None
    try:
        result = json.loads(message.content or "{}")
    except ValueError:
        result = {}
    detail = result.get("message") if isinstance(result, dict) else ""
    return {"code": code or "failed", "message": str(detail or "")}
