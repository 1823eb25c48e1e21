"""Which models may be used: the pickers of the copilot and the domains' background calls
(document workflow, summarization) choose among the same models."""

from __future__ import annotations

from apps.core.services import get_setting
from apps.llm.models import ModelConfig

DEFAULT_MODEL_SETTING = "default_chat_model"


def offered_models():
    """Models a user may pick: enabled provider, probe not failed."""
    return ModelConfig.objects.select_related("provider").filter(provider__enabled=True, probe_failed=False)


def default_model() -> ModelConfig | None:
    """The instance's default model (setting `default_chat_model`), else the oldest offered one."""
    wanted = get_setting(DEFAULT_MODEL_SETTING)
    models = offered_models()
    if isinstance(wanted, int | str) and str(wanted).isdigit():
        found = models.filter(pk=int(wanted)).first()
        if found is not None:
            return found
    return models.order_by("pk").first()
