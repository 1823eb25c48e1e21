"""The typed contract of the agent's surfaces: the chat REST API (`/api/v1/chat/…`, the same
records as the WebSocket and the SSE stream: `services.serialize_*`), the agent's own tools, and
the OpenAI-compatible inference passthrough (`/api/v1/inference/…`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from pydantic import (
    AliasChoices,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from apps.agent.models import Message, Run, RunEvent
from apps.core.contracts import INTEGER_MAX, Input, Output, PageInput, paged
from apps.core.outputs import RowOutput

CONTENT_MAX = 20_000  # characters of one chat message
ATTACHMENTS_MAX = 20  # documents attached to one message
TITLE_MAX = 200  # characters of a chat's title

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
class _Row(RowOutput):
    """An output read from a row; enum fields hold their plain values (live events and the
    channel layer send them as text)."""

    model_config = ConfigDict(extra="forbid", from_attributes=True, use_enum_values=True)


class ChatSessionOut(_Row):
    id: int
    title: str
    created_at: IsoDateTime
    updated_at: IsoDateTime


class ChatSessionEntry(_Row):
    """A chat's entry in the chat list of the user's open pages (live event, rename answer)."""

    id: int
    title: str
    title_source: str
    url: str


class RunEventOut(_Row):
    id: int
    run_id: int
    seq: int = Field(description="Position in the run, from 1.")
    kind: RunEventKind
    payload: dict[str, Any] = Field(description="The event's data; its keys depend on `kind`.")
    created_at: IsoDateTime


class RunOutcomeOut(_Row):
    """Why a run stopped or failed, for the reader."""

    status: RunStatus
    code: str = Field(
        description="`cancelled` (stopped by the person) or the failure's code, e.g. `provider_unreachable`."
    )
    message: str = Field(description="The reason in the reader's language.")


class ToolErrorOut(_Row):
    code: str = Field(description="The tool's stable error code.")
    message: str


class RunOut(_Row):
    id: int
    session_id: int
    status: RunStatus
    kind: RunKind
    model: str = Field(
        validation_alias=AliasChoices("model_label", "model"),
        description="The model's label, or the virtual `moa/<slug>` id.",
    )
    max_rounds: int
    rounds: int
    prompt_tokens: int
    completion_tokens: int
    cost: str = Field(description="Decimal, in the providers' currency.")
    error_code: str = Field(description="Stable failure code of a failed run; empty otherwise.")
    error_message: str
    diagnostics: dict[str, Any] = Field(description="How a failed run ended (free form).")
    outcome: RunOutcomeOut | None = Field(description="Set when the run was stopped or failed.")
    retry_of_id: int | None = Field(description="The stopped or failed run this one tries again.")
    created_at: IsoDateTime
    started_at: IsoDateTime | None
    finished_at: IsoDateTime | None

    @field_validator("cost", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> Any:
        return str(value) if isinstance(value, Decimal) else value


class RunWithEventsOut(RunOut):
    events: list[RunEventOut]

    @field_validator("events", mode="before")
    @classmethod
    def _in_order(cls, value: Any) -> Any:
        return list(value.order_by("seq")) if hasattr(value, "order_by") else value


class MessageOut(_Row):
    id: int
    role: MessageRole
    content: str
    tool_calls: list[dict[str, Any]] = Field(description="An assistant turn's tool calls (OpenAI shape).")
    tool_call_id: str
    run_id: int | None
    metadata: dict[str, Any] = Field(description="E.g. `attachments` of a user message.")
    created_at: IsoDateTime
    run_outcome: RunOutcomeOut | None = Field(description="Set when the message's run was stopped or failed.")
    tool_error: ToolErrorOut | None = Field(description="A failed tool call's code and message.")


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
    q: str = Field(
        default="", max_length=200, description="Only chats whose title or a message contains this text."
    )


class ChatSessionCreate(Input):
    title: str = Field(default="", max_length=TITLE_MAX)


class ChatSessionRename(Input):
    title: str = Field(min_length=1, max_length=TITLE_MAX, description="The chat's new name (yours, kept).")


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
    budget: Decimal | None = Field(
        default=None, gt=0, max_digits=10, decimal_places=4, description="The run's cost limit."
    )
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


class ToolboxOpened(Output):
    """`request_toolbox`: the toolbox now active and its tools (callable from the next round)."""

    toolbox: str
    tools: list[str]


class TodoItemOut(Output):
    title: str
    status: str = Field(description="pending, in_progress or done.")


class TodoListOut(Output):
    """`agent_todo_update`: the whole list as the run shows it."""

    items: list[TodoItemOut]


# --- inference passthrough (OpenAI-compatible) --------------------------------------------------
MAX_MESSAGES = 500
MAX_TOOLS = 128
InferenceRole = StrEnum(
    "InferenceRole", {r.upper(): r for r in ("system", "user", "assistant", "developer", "tool")}
)
# OpenAI's rule for function names.
FunctionName = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class _Passed(Input):
    """A part of an OpenAI request: fields this version does not know are dropped, not refused."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=False)


class InferenceFunctionCall(_Passed):
    name: FunctionName
    arguments: str = Field(default="", description="The arguments as a JSON text.")


class InferenceToolCall(_Passed):
    """A tool call of an earlier assistant turn (the client ran it)."""

    id: str = Field(min_length=1, max_length=200)
    type: Literal["function"] = "function"
    function: InferenceFunctionCall


class InferenceMessage(_Passed):
    """One chat message; other OpenAI fields (`name` …) are dropped. Tool turns (an assistant's
    `tool_calls`, a `tool` message with its `tool_call_id`) pass to the provider as sent."""

    role: InferenceRole
    content: str | list[Any] | None = Field(
        default=None, description="Text, or OpenAI content parts; null beside `tool_calls`."
    )
    tool_calls: list[InferenceToolCall] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_call_id: str | None = Field(default=None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _complete(self) -> InferenceMessage:
        if self.role == "tool" and not self.tool_call_id:
            raise PydanticCustomError("tool_call_id_missing", _("A tool message needs its “tool_call_id”."))
        if self.content is None and not (self.role == "assistant" and self.tool_calls):
            raise PydanticCustomError("content_missing", _("The message has no content."))
        return self


class InferenceFunction(_Passed):
    name: FunctionName
    description: str | None = Field(default=None, max_length=10_000)
    parameters: dict[str, Any] | None = Field(default=None, description="The arguments' JSON schema.")
    strict: bool | None = None


class InferenceTool(_Passed):
    """A function the client offers the model. The server never runs it: the model's calls come
    back to the client in `tool_calls`."""

    type: Literal["function"] = "function"
    function: InferenceFunction


class InferenceNamedFunction(_Passed):
    name: FunctionName


class InferenceToolChoice(_Passed):
    type: Literal["function"] = "function"
    function: InferenceNamedFunction


class InferenceRequest(Input):
    model: str = Field(
        default="",
        max_length=300,
        description="A model id or label, or a Mixture-of-Agents preset `moa/<slug>`; default: the default model.",
    )
    messages: list[InferenceMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = Field(default=False, description="true: answer as Server-Sent Events (OpenAI chunks).")
    tools: list[InferenceTool] | None = Field(
        default=None,
        max_length=MAX_TOOLS,
        description="Functions the model may call; its calls come back in `tool_calls`, none runs here.",
    )
    tool_choice: Literal["none", "auto", "required"] | InferenceToolChoice | None = Field(
        default=None, description="OpenAI's `tool_choice`, passed to the provider with `tools`."
    )


class OpenAIError(Output):
    message: str
    type: str = Field(description="`invalid_request_error`, `authentication_error`, `permission_error` …")
    param: str | None = Field(description="The offending request field, e.g. `model`; null when none.")
    code: str = Field(
        description="The stable code, e.g. `model_not_found` (the same as the top-level `code`)."
    )


class InferenceErrorOut(Output):
    """A refused passthrough call: the project's error fields (`ErrorOut`) and OpenAI's `error`
    object, which OpenAI clients read (a body refused before it reaches the passthrough, e.g.
    `nul_character`, has the project's fields only; OpenAI clients then read `code` from them)."""

    model_config = ConfigDict(extra="allow")

    code: str
    message: str
    details: Any = None
    error: OpenAIError | None = None


class InferenceModel(Output):
    id: str
    object: Literal["model"]
    created: int
    owned_by: str = Field(description="The provider's name (for a `moa/<slug>` preset: its aggregator's).")
    name: str


class InferenceModelList(Output):
    object: Literal["list"]
    data: list[InferenceModel]


class FunctionCallOut(Output):
    name: str
    arguments: str = Field(description="The arguments as a JSON text.")


class ToolCallOut(Output):
    id: str
    type: Literal["function"]
    function: FunctionCallOut


class CompletionMessage(Output):
    role: Literal["assistant"]
    content: str | None = Field(description="The text; null when the model only calls tools.")
    tool_calls: list[ToolCallOut] | None = Field(
        default=None, description="The model's calls of the request's `tools`, for the client to run."
    )


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


class ChunkToolCall(Output):
    index: int
    id: str
    type: Literal["function"]
    function: FunctionCallOut


class ChunkDelta(Output):
    role: Literal["assistant"] | None = None
    content: str | None = None
    tool_calls: list[ChunkToolCall] | None = Field(
        default=None, description="Each tool call whole, in one chunk after the text."
    )


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


# --- Mixture-of-Agents presets (the admin's) ------------------------------------------------------
class MoAPresetSave(Input):
    """A preset as an admin adds or changes it: offered as `moa/<slug>` in every model picker."""

    slug: str = Field(min_length=1, max_length=60, pattern=r"^[-a-zA-Z0-9_]+$")
    name: str = Field(min_length=1, max_length=100)
    aggregator_id: int = Field(ge=1, le=INTEGER_MAX)
    reference_model_ids: list[Annotated[int, Field(ge=1, le=INTEGER_MAX)]] = Field(
        min_length=1, max_length=20
    )
    prompt: str = Field(default="", max_length=20_000)
    enabled: bool = True
