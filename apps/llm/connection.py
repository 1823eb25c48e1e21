"""The admin's connection check and model list of a provider: one `GET /models` through the one
`openai` client (apps.llm.client), with a short timeout so an unreachable provider never holds an
admin page for the two minutes a model call may take. Messages come from `translate_error`: they
name the provider, never its key or the provider's response body."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.cache import cache
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.llm import client
from apps.llm.errors import ProviderError
from apps.llm.models import Provider

CHECK_TIMEOUT = 8.0  # seconds; the button waits this long at most
LIST_TIMEOUT = 4.0  # the model list renders inside a page: shorter still
LIST_CACHE_SECONDS = 300
LIST_MAX = 500  # some gateways list thousands of models; a picker shows the first ones


@dataclass
class ConnectionResult:
    ok: bool
    message: str
    code: str = ""
    models: list[str] = field(default_factory=list)


def check_connection(provider: Provider) -> ConnectionResult:
    """Ask the provider for its models; success names how many it offers."""
    try:
        models = client.list_models(provider, timeout=CHECK_TIMEOUT)
    except ProviderError as exc:
        return ConnectionResult(ok=False, code=exc.code, message=exc.message)
    cache.set(_cache_key(provider), models[:LIST_MAX], LIST_CACHE_SECONDS)
    message = ngettext(
        "Connection to “%(name)s” works: the provider offers %(count)d model.",
        "Connection to “%(name)s” works: the provider offers %(count)d models.",
        len(models),
    ) % {"name": provider.name, "count": len(models)}
    return ConnectionResult(ok=True, message=message, models=models)


def offered_model_ids(provider: Provider) -> tuple[list[str], str]:
    """The provider's model ids for a picker and, when they could not be fetched, why (the form
    then takes the id as free text). Successful lists are cached for a few minutes."""
    key = _cache_key(provider)
    cached = cache.get(key)
    if cached is not None:
        return cached, ""
    try:
        models = client.list_models(provider, timeout=LIST_TIMEOUT)[:LIST_MAX]
    except ProviderError as exc:
        return [], _("The model list could not be fetched (%(reason)s); enter the model id by hand.") % {
            "reason": exc.message
        }
    cache.set(key, models, LIST_CACHE_SECONDS)
    return models, ""


def _cache_key(provider: Provider) -> str:
    # The URL is part of the key: a changed base URL must not show the old provider's models.
    return f"llm:models:{provider.pk}:{provider.kind}:{provider.base_url}"
