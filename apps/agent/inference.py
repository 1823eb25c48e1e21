"""Stateless inference passthrough for API keys with `inference:execute`:
`POST /api/v1/inference/chat/completions` and `GET /api/v1/inference/models`, OpenAI-compatible.

No session, no run, no agent context. Function calling passes through: the client's `tools` and
`tool_choice` go to the provider and the model's tool calls come back to the client (streamed
too); nothing is ever executed here. Mixture-of-Agents presets are models (`moa/<slug>`). The
neutralization gate applies as to every model call; each provider call is recorded as
`InferenceUsage`. Refusals carry OpenAI's error object beside the project's error fields, so
OpenAI clients branch on `error.code` (an unknown model is 404 `model_not_found`, as OpenAI's)."""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse

from apps.agent import contracts as c
from apps.agent import moa
from apps.agent.errors import ModelNotFound, ToolsNotSupported
from apps.agent.models import InferenceUsage, MoAPreset
from apps.apikeys.models import ApiKey, Scope
from apps.core.contracts import ErrorOut
from apps.core.errors import Forbidden
from apps.core.surfaces.api import ApiView, endpoint, parse
from apps.core.surfaces.api import exception_handler as core_exception_handler
from apps.llm import client as llm
from apps.llm.errors import ProviderError
from apps.llm.models import ModelConfig
from apps.llm.neutralize import Gate
from apps.llm.selection import default_model, offered_models

SCOPE = Scope.INFERENCE_EXECUTE.value
TAGS = ["inference"]

# OpenAI's error `type` per HTTP status (clients branch on `code`, some on `type`).
ERROR_TYPES = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}


def openai_error(status: int, code: str, message: str, param: str | None = None) -> dict[str, Any]:
    kind = ERROR_TYPES.get(status) or ("api_error" if status >= 500 else "invalid_request_error")
    return {"message": message, "type": kind, "param": param, "code": code}


def exception_handler(exc, context):
    """The project's refusal (`ErrorOut`: code, message, details) plus OpenAI's `error` object
    ({message, type, param, code}); `param` is the first bad field, e.g. `model`."""
    response = core_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict):
        data = response.data
        details = data.get("details") if isinstance(data.get("details"), dict) else {}
        fields = list((details or {}).get("field_errors") or {})
        param = fields[0].split(".")[0] if fields else None
        data["error"] = openai_error(
            response.status_code, str(data.get("code", "")), str(data.get("message", "")), param
        )
    return response


class PassthroughView(ApiView):
    required_scopes = [SCOPE]

    def get_exception_handler(self):
        return exception_handler


def _error_response(description: str) -> OpenApiResponse:
    return OpenApiResponse(c.InferenceErrorOut, description=description)


def _require_key(request) -> ApiKey:
    if not isinstance(request.auth, ApiKey):
        raise Forbidden(_("The inference passthrough is for API keys with the inference:execute scope."))
    return request.auth


@dataclass
class Target:
    """What answers a request: one model, or a Mixture-of-Agents preset (whose aggregator writes
    the answer). `name` is what the client asked for and gets back as `model`."""

    name: str
    model: ModelConfig
    preset: MoAPreset | None = None


def _resolve(name: str) -> Target:
    if name.startswith(moa.PREFIX):
        preset = moa.find(name)
        if preset is not None:
            return Target(preset.virtual_id, preset.aggregator, preset)
        found = None
    elif not name:
        found = default_model()
    else:
        found = next((m for m in offered_models() if name in (m.model_id, m.label)), None)
    if found is None:
        message = _("The model “%(name)s” does not exist.") % {"name": name[:300]} if name else None
        message = message or _("This model is not available.")
        raise ModelNotFound(message, details={"field_errors": {"model": message}})
    return Target(found.model_id, found)


class ModelListView(PassthroughView):
    @endpoint(
        output=c.InferenceModelList,
        operation_id="inference_models_list",
        tags=TAGS,
        extra_responses={
            401: _error_response("No valid API key."),
            403: _error_response("Not an API key with `inference:execute`."),
            429: _error_response("`throttled`."),
        },
    )
    def get(self, request):
        """Models the passthrough offers (OpenAI-compatible), Mixture-of-Agents presets as `moa/<slug>`"""
        _require_key(request)
        data = [
            {"id": m.model_id, "object": "model", "created": 0, "owned_by": m.provider.name, "name": m.label}
            for m in offered_models()
        ]
        data += [
            {
                "id": p.virtual_id,
                "object": "model",
                "created": 0,
                "owned_by": p.aggregator.provider.name,
                "name": p.name,
            }
            for p in moa.presets()
        ]
        return {"object": "list", "data": data}


@dataclass
class Call:
    """One passthrough request on its way to the provider."""

    key: ApiKey
    target: Target
    messages: list[dict]
    tools: list[dict]
    tool_choice: Any
    gate: Gate = field(default_factory=lambda: Gate.for_run(None))
    # (model, completion) of every provider call, for the usage rows and the answer's `usage`
    usage: list[tuple[ModelConfig, Any]] = field(default_factory=list)
    mixture: moa.Mixture | None = None

    def complete(self, *, stream: bool, on_token: Callable[[str], None] | None = None) -> llm.Completion:
        """Touches no database (the streamed answer runs it in a thread): usage is collected."""
        tools = _neutral_tools(self.gate, self.tools, self.messages)
        if self.mixture is not None:
            return self.mixture.complete(
                self.messages, tools, on_token=on_token, should_stop=None, tool_choice=self.tool_choice
            )
        completion = llm.chat(
            self.target.model,
            self.messages,
            tools,
            stream=stream,
            on_token=on_token,
            gate=self.gate,
            tool_choice=self.tool_choice,
        )
        self.usage.append((self.target.model, completion))
        return completion

    def prepare(self) -> None:
        """The database reads a preset needs, before any thread starts."""
        if self.target.preset is not None:
            self.mixture = moa.Mixture(
                None,
                self.target.preset,
                self.gate,
                on_usage=lambda model, done: self.usage.append((model, _counted(done))),
            )

    def record(self, *, stream: bool, error: str = "") -> None:
        label = self.target.name
        rows = self.usage or [(self.target.model, None)]
        for model, done in rows:
            p, n = (done.prompt_tokens, done.completion_tokens) if done is not None else (0, 0)
            InferenceUsage.objects.create(
                api_key=self.key,
                user_id=self.key.created_by_id,
                model_config=model,
                model_label=label if self.target.preset is None else f"{label} ({model.label})"[:300],
                prompt_tokens=p,
                completion_tokens=n,
                cost=model.cost(p, n),
                stream=stream,
                ok=not error,
                error_code=error,
            )

    def totals(self) -> dict:
        p = sum(done.prompt_tokens for _, done in self.usage)
        n = sum(done.completion_tokens for _, done in self.usage)
        return {"prompt_tokens": p, "completion_tokens": n, "total_tokens": p + n}


def _neutral_tools(gate: Gate, tools: list[dict], messages: list[dict]) -> list[dict]:
    """The client's tool definitions pass the gate like its messages: their descriptions and
    enum values may name people (a call's arguments come back restored). Names and schema
    keywords stay as sent."""
    if not tools:
        return tools
    gate.messages(messages)  # the gate's watch sees the messages first (it may switch itself on)

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for k, v in node.items():
                if k == "description" and isinstance(v, str):
                    out[k] = gate.text(v)
                elif k == "enum" and isinstance(v, list):
                    out[k] = [gate.text(x) if isinstance(x, str) else x for x in v]
                else:
                    out[k] = walk(v)
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(tools)


@dataclass
class _Counted:
    prompt_tokens: int
    completion_tokens: int


def _counted(completion: llm.Completion) -> _Counted:
    """The tokens at report time (the mixture zeroes the aggregator's afterwards)."""
    return _Counted(completion.prompt_tokens, completion.completion_tokens)


class ChatCompletionsView(PassthroughView):
    @endpoint(
        request=c.InferenceRequest,
        output=c.ChatCompletion,
        operation_id="inference_chat_completions",
        tags=TAGS,
        extra_responses={
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR, description="With `stream: true`: the completion as OpenAI chunks."
            ),
            400: _error_response(
                "Bad input (`invalid_request`), `tools_not_supported` (legacy `functions`, or a model without tools)."
            ),
            401: _error_response("No valid API key."),
            403: _error_response("Not an API key with `inference:execute`."),
            404: _error_response(
                "`model_not_found`: no such model or `moa/<slug>` preset (as OpenAI answers)."
            ),
            429: _error_response("`throttled`."),
            502: OpenApiResponse(ErrorOut, description="The provider failed (`provider_*`)."),
        },
    )
    def post(self, request):
        """OpenAI-compatible chat completion (stateless; tools pass through, none runs here)

        `tools` and `tool_choice` go to the provider; the model's calls come back in the message's
        `tool_calls` for the client to run, and the client sends the results as `tool` messages.
        With `stream: true` the answer is Server-Sent Events: one `data:` line per
        `ChatCompletionChunk` (tool calls each whole in one chunk after the text; the last chunk
        carries `usage`; a provider failure sends `{"error": {"code", "message", "type", "param"}}`),
        then `data: [DONE]`."""
        key = _require_key(request)
        data = request.data if hasattr(request.data, "get") else {}
        for legacy in ("functions", "function_call"):
            if data.get(legacy):
                raise ToolsNotSupported.field(
                    legacy, _("The legacy “functions” are not supported; send them as “tools”.")
                )
        body = parse(c.InferenceRequest, request.data)
        target = _resolve(body.model)
        tools = [t.model_dump(mode="json", exclude_none=True) for t in body.tools or []]
        if tools and not target.model.supports_tools:
            raise ToolsNotSupported.field("tools", _("This model cannot call tools."))
        choice = body.tool_choice
        call = Call(
            key=key,
            target=target,
            messages=[m.model_dump(mode="json", exclude_none=True) for m in body.messages],
            tools=tools,
            tool_choice=choice.model_dump(mode="json")
            if isinstance(choice, c.InferenceToolChoice)
            else choice,
        )
        call.prepare()
        if body.stream:
            response = StreamingHttpResponse(_stream(call), content_type="text/event-stream")
            response["Cache-Control"] = "no-cache"
            return response
        try:
            completion = call.complete(stream=False)
        except ProviderError as exc:
            call.record(stream=False, error=exc.code)
            raise
        call.record(stream=False)
        return _completion_body(call, completion)


def _tool_calls(completion) -> list[dict]:
    return [
        {"id": t.id, "type": "function", "function": {"name": t.name, "arguments": t.arguments}}
        for t in completion.tool_calls
    ]


def _finish(completion) -> str:
    if completion.tool_calls:
        return "tool_calls"
    return completion.finish_reason or "stop"


def _completion_body(call: Call, completion) -> dict:
    calls = _tool_calls(completion)
    message: dict[str, Any] = {"role": "assistant", "content": completion.content or (None if calls else "")}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": call.target.name,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(completion)}],
        "usage": call.totals(),
    }


def _stream(call: Call) -> Iterator[str]:
    """The model call runs in a thread; its (restored) deltas are relayed as OpenAI chunks, its
    (restored) tool calls after the text, each whole."""
    chunks: queue.Queue = queue.Queue()
    done = object()
    ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

    def chunk(delta: dict, finish: str | None = None, **extra) -> str:
        body = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": call.target.name,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        c.ChatCompletionChunk.model_validate(body)  # the declared shape, checked as it is sent
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    def work() -> None:
        try:
            chunks.put(("end", call.complete(stream=True, on_token=lambda t: chunks.put(("token", t)))))
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
            call.record(stream=True)
            for index, tool_call in enumerate(_tool_calls(value)):
                yield chunk({"tool_calls": [{"index": index, **tool_call}]})
            yield chunk({}, _finish(value), usage=call.totals())
        else:
            call.record(stream=True, error=value.code)
            error = openai_error(502, value.code, value.message)
            yield f"data: {json.dumps({'error': error}, ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"
