"""Capability probe: one tiny request per model, through `client.chat` (so the neutralization gate and
the provider quirks apply), with one trivial tool definition.

Outcome on the `ModelConfig`: `probe_failed` when the provider refuses (bad key, unknown model,
unreachable); `supports_tools=False` when the model answers but cannot call tools; `probed_at`
and a short `probe_error` (code and localized message, never the key or the provider's body).
A failed model is not offered in any picker (`apps.llm.selection.offered_models`).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import queue
from apps.llm import client
from apps.llm.errors import ProviderAuthFailed, ProviderError, ProviderRateLimited
from apps.llm.models import ModelConfig

logger = logging.getLogger(__name__)

PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Connectivity check. Call it without arguments.",
        "parameters": {"type": "object", "properties": {}},
    },
}
PROBE_MESSAGES = [
    {"role": "system", "content": "This is a capability check. Call the tool ping, nothing else."},
    {"role": "user", "content": "ping"},
]
ERROR_MAX = 300
# HTTP statuses with which providers refuse a request because of its `tools` (Ollama and vLLM: 400;
# some gateways: 422 or 501). The probe then retries without tools.
TOOLS_REFUSED = {400, 422, 501}


def _summary(code: str, message: str) -> str:
    return f"{code}: {message}"[:ERROR_MAX]


def _status(exc: ProviderError) -> int | None:
    return (exc.details or {}).get("status") if isinstance(exc.details, dict) else None


def _failure_code(exc: ProviderError) -> str:
    if _status(exc) == 404:
        return "model_not_found"
    return exc.code


def probe_model(model_config: ModelConfig) -> ModelConfig:
    """Probe one model and record the outcome; never raises for provider failures."""
    # A copy with tools switched on: `request_params` sends tools only to tool-capable models.
    candidate = copy.copy(model_config)
    candidate.supports_tools = True
    probe_failed, supports_tools, note = False, model_config.supports_tools, ""
    try:
        try:
            completion = client.chat(candidate, PROBE_MESSAGES, [PROBE_TOOL], stream=False)
            if completion.tool_calls:
                supports_tools = True
            else:
                supports_tools = False
                note = _summary("no_tool_call", _("The model answered but did not call the test tool."))
        except ProviderError as exc:
            if isinstance(exc, ProviderAuthFailed | ProviderRateLimited) or _status(exc) not in TOOLS_REFUSED:
                raise
            # The request with a tool was refused: does the model answer without one?
            client.chat(model_config, PROBE_MESSAGES[1:], None, stream=False)
            supports_tools = False
            note = _summary("tools_unsupported", _("The provider refused tool definitions for this model."))
    except ProviderRateLimited as exc:
        # Transient: keep the previous verdict, say why this probe found nothing.
        probe_failed = model_config.probe_failed
        note = _summary(exc.code, exc.message)
    except ProviderError as exc:
        probe_failed = True
        note = _summary(_failure_code(exc), exc.message)
    except Exception:  # a probe must never break the admin action or the job
        logger.exception("capability probe of model %s failed unexpectedly", model_config.pk)
        probe_failed = True
        note = _summary("probe_internal_error", _("The probe failed unexpectedly; see the server log."))
    model_config.probe_failed = probe_failed
    model_config.supports_tools = supports_tools
    model_config.probe_error = note
    model_config.probed_at = timezone.now()
    model_config.save(update_fields=["probe_failed", "supports_tools", "probe_error", "probed_at"])
    return model_config


def probe_models(model_ids: Iterable[int]) -> list[ModelConfig]:
    """Probe each existing model of the ids (the job's body)."""
    configs = ModelConfig.objects.select_related("provider").filter(pk__in=list(model_ids)).order_by("pk")
    return [probe_model(config) for config in configs]


def enqueue_probe(model_ids: Iterable[int]) -> None:
    """Queue the probe job once the current transaction commits. A broker that is down is logged,
    never raised: the probe is advisory and must not block a start or an admin page."""
    ids = sorted({int(i) for i in model_ids})
    if not ids:
        return

    def send() -> None:
        try:
            queue.send("apps.llm.jobs.probe_models_job", ids)  # by name: the job imports this module
        except Exception:
            logger.warning("could not queue the capability probe of models %s", ids, exc_info=True)

    transaction.on_commit(send)
