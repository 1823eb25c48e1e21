"""Stateless inference passthrough for API keys with `inference:execute`:
`POST /api/v1/inference/chat/completions` and `GET /api/v1/inference/models`, OpenAI-compatible.
No session, no run, no tools; the neutralization gate applies as to every model call; each call
is recorded as `InferenceUsage`."""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from collections.abc import Iterator

from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse

from apps.agent import contracts as c
from apps.agent.errors import ModelNotFound, ToolsNotSupported
from apps.agent.models import InferenceUsage
from apps.apikeys.models import ApiKey, Scope
from apps.core.api import ApiView, endpoint, parse
from apps.core.contracts import ErrorOut
from apps.core.errors import Forbidden
from apps.llm import client as llm
from apps.llm.errors import ProviderError
from apps.llm.models import ModelConfig
from apps.llm.neutralize import Gate
from apps.llm.selection import default_model, offered_models

SCOPE = Scope.INFERENCE_EXECUTE.value
TAGS = ["inference"]


def _require_key(request) -> ApiKey:
    if not isinstance(request.auth, ApiKey):
        raise Forbidden(_("The inference passthrough is for API keys with the inference:execute scope."))
    return request.auth


def _models() -> list[ModelConfig]:
    return list(offered_models())


def _resolve(name: str) -> ModelConfig:
    if not name:
        found = default_model()
    else:
        found = next((m for m in _models() if name in (m.model_id, m.label)), None)
    if found is None:
        raise ModelNotFound(_("This model is not available."))
    return found


class ModelListView(ApiView):
    required_scopes = [SCOPE]

    @endpoint(output=c.InferenceModelList, operation_id="inference_models_list", tags=TAGS)
    def get(self, request):
        """Models the passthrough offers (OpenAI-compatible)"""
        _require_key(request)
        data = [
            {"id": m.model_id, "object": "model", "created": 0, "owned_by": m.provider.name, "name": m.label}
            for m in _models()
        ]
        return {"object": "list", "data": data}


class ChatCompletionsView(ApiView):
    required_scopes = [SCOPE]

    @endpoint(
        request=c.InferenceRequest,
        output=c.ChatCompletion,
        operation_id="inference_chat_completions",
        tags=TAGS,
        extra_responses={
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR, description="With `stream: true`: the completion as OpenAI chunks."
            ),
            400: OpenApiResponse(
                ErrorOut, description="`tools_not_supported`, `model_not_found`, bad input."
            ),
            502: OpenApiResponse(ErrorOut, description="The provider failed (`provider_*`)."),
        },
    )
    def post(self, request):
        """OpenAI-compatible chat completion (stateless, no tools)

        With `stream: true` the answer is Server-Sent Events: one `data:` line per `ChatCompletionChunk`
        (the last one carries `usage`; a provider failure sends `{"error": {"code", "message"}}`), then
        `data: [DONE]`."""
        key = _require_key(request)
        data = request.data if hasattr(request.data, "get") else {}
        if data.get("tools") or data.get("functions"):
            raise ToolsNotSupported(_("The inference passthrough runs no tools."))
        body = parse(c.InferenceRequest, request.data)
        model = _resolve(body.model)
        messages = [m.model_dump(mode="json") for m in body.messages]
        if body.stream:
            response = StreamingHttpResponse(_stream(key, model, messages), content_type="text/event-stream")
            response["Cache-Control"] = "no-cache"
            return response
        try:
            completion = llm.chat(model, messages, stream=False)
        except ProviderError as exc:
            _record(key, model, None, stream=False, error=exc.code)
            raise
        _record(key, model, completion, stream=False)
        return _completion_body(model, completion)


def _record(key: ApiKey, model: ModelConfig, completion, *, stream: bool, error: str = "") -> None:
    p, n = (completion.prompt_tokens, completion.completion_tokens) if completion else (0, 0)
    InferenceUsage.objects.create(
        api_key=key,
        user_id=key.created_by_id,
        model_config=model,
        model_label=model.label,
        prompt_tokens=p,
        completion_tokens=n,
        cost=model.cost(p, n),
        stream=stream,
        ok=not error,
        error_code=error,
    )


def _usage(completion) -> dict:
    p, n = completion.prompt_tokens, completion.completion_tokens
    return {"prompt_tokens": p, "completion_tokens": n, "total_tokens": p + n}


def _completion_body(model: ModelConfig, completion) -> dict:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model.model_id,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": completion.content},
                "finish_reason": completion.finish_reason or "stop",
            }
        ],
        "usage": _usage(completion),
    }


def _stream(key: ApiKey, model: ModelConfig, messages: list[dict]) -> Iterator[str]:
    """The model call runs in a thread; its (restored) deltas are relayed as OpenAI chunks."""
    chunks: queue.Queue = queue.Queue()
    done = object()
    ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

    def chunk(delta: dict, finish: str | None = None, **extra) -> str:
        body = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model.model_id,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        c.ChatCompletionChunk.model_validate(body)  # the declared shape, checked as it is sent
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    gate = Gate.for_run(None)  # built here: the thread below touches no database

    def work() -> None:
        try:
            completion = llm.chat(
                model, messages, stream=True, gate=gate, on_token=lambda t: chunks.put(("token", t))
            )
            chunks.put(("end", completion))
        except ProviderError as exc:
            chunks.put(("error", exc))
        finally:
            chunks.put((done, None))

    threading.Thread(target=work, daemon=True, name="inference-stream").start()
    yield chunk({"role": "assistant", "content": ""})
    while True:
        kind, value = chunks.get()
        if kind is done:
            break
        if kind == "token":
            yield chunk({"content": value})
        elif kind == "end":
            _record(key, model, value, stream=True)
            yield chunk({}, value.finish_reason or "stop", usage=_usage(value))
        else:
            _record(key, model, None, stream=True, error=value.code)
            error = {"error": {"code": value.code, "message": value.message}}
            yield f"data: {json.dumps(error, ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"
