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
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.agent import services
from apps.agent.errors import ModelNotFound, ToolsNotSupported
from apps.agent.models import InferenceUsage
from apps.apikeys.models import ApiKey, Scope
from apps.core.errors import Forbidden
from apps.llm import client as llm
from apps.llm.errors import ProviderError
from apps.llm.models import ModelConfig
from apps.llm.neutralize import Gate

SCOPE = Scope.INFERENCE_EXECUTE.value
MAX_MESSAGES = 500


class InferenceRequest(serializers.Serializer):
    model = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")
    messages = serializers.ListField(child=serializers.DictField(), min_length=1, max_length=MAX_MESSAGES)
    stream = serializers.BooleanField(required=False, default=False)

    def validate_messages(self, value: list[dict]) -> list[dict]:
        for m in value:
            if m.get("role") not in ("system", "user", "assistant", "developer"):
                raise serializers.ValidationError(_("Each message needs a role: system, user or assistant."))
            if not isinstance(m.get("content"), str | list):
                raise serializers.ValidationError(_("Each message needs a content."))
            if m.get("tool_calls") or m.get("role") == "tool":
                raise serializers.ValidationError(_("The inference passthrough runs no tools."))
        return [{"role": m["role"], "content": m["content"]} for m in value]


def _require_key(request) -> ApiKey:
    if not isinstance(request.auth, ApiKey):
        raise Forbidden(_("The inference passthrough is for API keys with the inference:execute scope."))
    return request.auth


def _models() -> list[ModelConfig]:
    return list(services.offered_models())


def _resolve(name: str) -> ModelConfig:
    if not name:
        found = services.default_model()
    else:
        found = next((m for m in _models() if name in (m.model_id, m.label)), None)
    if found is None:
        raise ModelNotFound(_("This model is not available."))
    return found


@extend_schema(tags=["inference"])
class ModelListView(APIView):
    required_scopes = [SCOPE]

    @extend_schema(operation_id="inference_models_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        _require_key(request)
        data = [
            {"id": m.model_id, "object": "model", "created": 0, "owned_by": m.provider.name, "name": m.label}
            for m in _models()
        ]
        return Response({"object": "list", "data": data})


@extend_schema(tags=["inference"])
class ChatCompletionsView(APIView):
    required_scopes = [SCOPE]

    @extend_schema(
        operation_id="inference_chat_completions",
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT},
        summary="OpenAI-compatible chat completion (stateless, no tools)",
    )
    def post(self, request):
        key = _require_key(request)
        if request.data.get("tools") or request.data.get("functions"):
            raise ToolsNotSupported(_("The inference passthrough runs no tools."))
        data = InferenceRequest(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        model = _resolve(v["model"])
        if v["stream"]:
            response = StreamingHttpResponse(
                _stream(key, model, v["messages"]), content_type="text/event-stream"
            )
            response["Cache-Control"] = "no-cache"
            return response
        try:
            completion = llm.chat(model, v["messages"], stream=False)
        except ProviderError as exc:
            _record(key, model, None, stream=False, error=exc.code)
            raise
        _record(key, model, completion, stream=False)
        return Response(_completion_body(model, completion))


def _record(key: ApiKey, model: ModelConfig, completion, *, stream: bool, error: str = "") -> None:
    p, c = (completion.prompt_tokens, completion.completion_tokens) if completion else (0, 0)
    InferenceUsage.objects.create(
        api_key=key,
        user_id=key.created_by_id,
        model_config=model,
        model_label=model.label,
        prompt_tokens=p,
        completion_tokens=c,
        cost=model.cost(p, c),
        stream=stream,
        ok=not error,
        error_code=error,
    )


def _usage(completion) -> dict:
    p, c = completion.prompt_tokens, completion.completion_tokens
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


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
