"""First start: a provider from OPENAI_API_KEY / OPENAI_BASE_URL / OPENAI_MODEL when none exists."""

from __future__ import annotations

import os
from collections.abc import Mapping

from apps.core.services import get_setting, set_setting
from apps.llm.models import ModelConfig, Provider
from apps.llm.probe import enqueue_probe

DEFAULT_MODEL = "gpt-4o-mini"


def ensure_env_provider(environ: Mapping[str, str] | None = None) -> Provider | None:
    """Idempotent: does nothing once any provider exists (the admin owns them from then on)."""
    env = os.environ if environ is None else environ
    key, base_url = env.get("OPENAI_API_KEY", "").strip(), env.get("OPENAI_BASE_URL", "").strip()
    if not (key or base_url) or Provider.objects.exists():
        return None
    official = not base_url or "api.openai.com" in base_url
    provider = Provider.objects.create(
        name="OpenAI" if official else "OpenAI-compatible",
        kind=Provider.Kind.OPENAI if official else Provider.Kind.OPENAI_COMPATIBLE,
        base_url=base_url,
        api_key=key,
    )
    model_id = env.get("OPENAI_MODEL", "").strip() or DEFAULT_MODEL
    config = ModelConfig.objects.create(provider=provider, model_id=model_id)
    if get_setting("default_chat_model") is None:
        set_setting("default_chat_model", config.pk)
    enqueue_probe([config.pk])  # after the commit, in the worker: never blocks the start
    return provider
