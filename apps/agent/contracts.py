"""The typed contract of the agent's surfaces: the chat REST API (`/api/v1/chat/…`, the same
records as the WebSocket and the SSE stream: `services.serialize_*`), the agent's own tools, and
the OpenAI-compatible inference passthrough (`/api/v1/inference/…`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from pydantic import BeforeValidator, ConfigDict, Field, PlainSerializer, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from apps.agent.models import Message, Run, RunEvent
from apps.agent.services import ATTACHMENTS_MAX, CONTENT_MAX
from apps.core.contracts import Input, Output, PageInput, paged

# The socket and the stream send `isoformat()`; the REST records are the same text.
IsoDateTime = Annotated[
    dt.datetime,
    PlainSerializer(lambda value: value.isoformat(), return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]

# Named enums (their own OpenAPI components), with the models' values.
RunStatus = StrEnum("RunStatus", {s.name: s.value for s in Run.Status})
RunKind = StrEnum("RunKind", {k.name: k.value for k in Run.Kind})
RunEventKind = StrEnum("RunEventKind", {k.name: k.value for k in RunEvent.Kind})
MessageRole = StrEnum("MessageRole", {r.name: r.value for r in Message.Role})


# --- chat: output -----------------------------------------------------------------------------
class ChatSessionOut(Output):
    id: int
    title: str
    created_at: IsoDateTime
    updated_at: IsoDateTime


class RunEventOut(Output):
    id: int
    run_id: int
    seq: int = Field(description="Position in the run, from 1.")
    kind: RunEventKind
    payload: dict[str, Any] = Field(description="The event's data; its keys depend on `kind`.")
    created_at: IsoDateTime


class RunOut(Output):
    id: int
    session_id: int
    status: RunStatus
    kind: RunKind
    model: str = Field(description="The model's label, or the virtual `moa/<slug>` id.")
    max_rounds: int
    rounds: int
    prompt_tokens: int
    completion_tokens: int
    cost: str = Field(description="Decimal, in the providers' currency.")
    error_code: str = Field(description="Stable failure code of a failed run; empty otherwise.")
    error_message: str
    diagnostics: dict[str, Any] = Field(description="How a failed run ended (free form).")
    created_at: IsoDateTime
    started_at: IsoDateTime | None
    finished_at: IsoDateTime | None


class RunWithEventsOut(RunOut):
    events: list[RunEventOut]


class MessageOut(Output):
    id: int
    role: MessageRole
    content: str
    tool_calls: list[dict[str, Any]] = Field(description="An assistant turn's tool calls (OpenAI shape).")
    tool_call_id: str
    run_id: int | None
    metadata: dict[str, Any] = Field(description="E.g. `attachments` of a user message.")
    created_at: IsoDateTime


ChatSessionPage = paged(ChatSessionOut, "sessions", name="ChatSessionPage")


class ChatSessionResult(Output):
    session: ChatSessionOut


class MessageList(Output):
    messages: list[MessageOut]
    next_after: int | None = Field(description="Pass as ?after= for the next messages; null: none.")


class RunQueued(Output):
    run_id: int
    status: RunStatus


class RunResult(Output):
    run: RunOut


class RunDetail(Output):
    run: RunWithEventsOut


# --- chat: input ------------------------------------------------------------------------------
class ChatSessionFilter(PageInput):
    limit: int = Field(default=PageInput.MAX_LIMIT, ge=1, le=PageInput.MAX_LIMIT, description="Page size.")


class ChatSessionCreate(Input):
    title: str = Field(default="", max_length=200)


def _cursor(value: Any) -> Any:
    """An unreadable cursor reads from the start, as it always has."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


class MessageCursor(Input):
    after: Annotated[int, BeforeValidator(_cursor)] = Field(
        default=0, description="Only messages with a larger id."
    )


class MessageCreate(Input):
    content: str = Field(min_length=1, max_length=CONTENT_MAX)
    model_id: str | None = Field(
        default=None, min_length=1, max_length=80, description="A model id or a virtual model `moa/<slug>`."
    )
    max_rounds: int | None = Field(default=None, ge=1, le=100)
    budget: Decimal | None = Field(default=None, ge=0, max_digits=10, decimal_places=4)
    document_ids: list[Annotated[int, Field(ge=1)]] | None = Field(
        default=None,
        max_length=ATTACHMENTS_MAX,
        description="Documents attached to the message (upload them first via /api/v1/documents/); "
        "each must be visible to you, else 404 `attachment_not_found` and nothing is stored.",
    )


class StreamCursor(Input):
    """Where the SSE stream resumes: `Last-Event-ID` (an EventSource reconnecting) or ?after=."""

    after: int = Field(default=0, description="Only events with a larger id.")


# --- agent tools ------------------------------------------------------------------------------
class RequestToolbox(Input):
    toolbox: str = Field(
        min_length=1, max_length=64, description="Toolbox (tool family) to activate, e.g. mandanten."
    )
    reason: str = Field(default="", max_length=300, description="Why you need it, in a few words.")


class TodoItem(Input):
    title: str = Field(min_length=1, max_length=200, description="One step of your plan.")
    status: str = Field(
        default="pending", pattern="^(pending|in_progress|done)$", description="pending, in_progress or done."
    )


class TodoUpdate(Input):
    items: list[TodoItem] = Field(max_length=30, description="The whole todo list, in order.")


# --- inference passthrough (OpenAI-compatible) --------------------------------------------------
MAX_MESSAGES = 500
InferenceRole = StrEnum("InferenceRole", {r.upper(): r for r in ("system", "user", "assistant", "developer")})


class InferenceMessage(Input):
    """One chat message; other OpenAI fields (`name` …) are dropped, tool turns are refused."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)

    role: InferenceRole
    content: str | list[Any] = Field(description="Text, or OpenAI content parts.")

    @model_validator(mode="before")
    @classmethod
    def _no_tools(cls, data: Any) -> Any:
        if isinstance(data, dict) and (data.get("tool_calls") or data.get("role") == "tool"):
            raise PydanticCustomError("tools_not_supported", _("The inference passthrough runs no tools."))
        return data


class InferenceRequest(Input):
    model: str = Field(
        default="", max_length=300, description="A model id or label; default: the default model."
    )
    messages: list[InferenceMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = Field(default=False, description="true: answer as Server-Sent Events (OpenAI chunks).")


class InferenceModel(Output):
    id: str
    object: Literal["model"]
    created: int
    owned_by: str = Field(description="The provider's name.")
    name: str


class InferenceModelList(Output):
    object: Literal["list"]
    data: list[InferenceModel]


class CompletionMessage(Output):
    role: Literal["assistant"]
    content: str


class CompletionChoice(Output):
    index: int
    message: CompletionMessage
    finish_reason: str


class Usage(Output):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(Output):
    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: Usage


class ChunkDelta(Output):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(Output):
    index: int
    delta: ChunkDelta
    finish_reason: str | None


class ChatCompletionChunk(Output):
    """One `data:` line of a streamed completion; the last chunk carries `usage`."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = None
