"""The typed contract of the tool framework's REST surface (`/api/v1/tools*`): the catalog, the
execute request, and the seed's tool-result envelope every surface answers with (`ToolResult`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import ConfigDict, Field, RootModel

from apps.core.contracts import Input, Output


# --- input ------------------------------------------------------------------------------------
class ToolExecute(Input):
    """One tool call. Identity fields in the body (userId, session, principal …) are ignored: the
    call acts as the authenticated credential."""

    # Names and keys are taken exactly as sent (a padded name is an unknown tool, as always).
    model_config = ConfigDict(str_strip_whitespace=False)
    # The dispatcher checks both: a name with a NUL is an (audited) unknown tool, arguments are
    # validated by the tool's own model.
    UNCHECKED = frozenset({"tool", "arguments"})

    tool: str = Field(min_length=1, description="Exact tool name from the catalog.")
    # Checked by the dispatcher, which answers `invalid_arguments` with field errors.
    arguments: Any = Field(
        default_factory=dict,
        description="The tool's arguments (a JSON object).",
        json_schema_extra={"type": "object", "additionalProperties": True},
    )
    idempotency_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Replays the first result for the same key and payload; another payload gives 409.",
    )


# --- output -----------------------------------------------------------------------------------
class ToolResultOut(Output):
    """The result envelope (seed contract): `ok`, the tool's `output`, a stable `code` and a
    `message` on failure, and the live UI mutation metadata."""

    ok: bool
    output: Any = Field(
        description="The tool's output, as its `output_schema` in the catalog declares; on failure the error details."
    )
    code: str | None = Field(description="Stable failure code; null on success.")
    message: str
    ui_actions: list[dict[str, Any]] = Field(
        description="Live UI actions of the mutation (uiActions) for the caller: the tool's own and those of "
        "the caller's private events. What the all-user fan-out delivers on the live stream is not repeated."
    )
    trigger_reload: bool
    refresh_topic: str
    mutation_event_id: int | None = Field(
        description="The (last) mutation event the call recorded, also through `tool_execute`; null: none."
    )


class ToolDescription(Output):
    name: str
    description: str
    family: str
    families: list[str] = Field(description="Every family the tool belongs to (its own first).")
    toolbox: str = Field(description="The toolbox (family) that brings the tool into a run.")
    module: str | None = Field(description="The installable module that gates the tool; null: never gated.")
    read_only: bool
    reads_foreign_content: bool
    operations: list[str] = Field(description="The operations a policy names for this tool (approvals).")
    surfaces: list[str]
    parameters: dict[str, Any] = Field(description="The arguments' JSON schema (OpenAI function calling).")
    output_schema: dict[str, Any] | None = Field(
        description="The JSON schema of a successful call's `output`; null: not declared."
    )


class ToolCatalog(Output):
    tools: list[ToolDescription]


# --- the core tools' outputs (apps/tools/tools.py) --------------------------------------------
class ToolSummaryOut(Output):
    name: str
    family: str
    summary: str = Field(description="The first sentence of the tool's description.")
    read_only: bool


class CatalogSearchOut(Output):
    query: str
    family: str = Field(description="The query read as a family name (normalized).")
    results: list[ToolSummaryOut] = Field(description="Visible tools, best match first.")


class CatalogExpandOut(Output):
    family: str
    tools: list[ToolDescription]


class ForwardedOutput(RootModel[Any]):
    """`tool_execute` answers the called tool's own output (see that tool's output schema)."""


class UserOut(Output):
    id: int
    email: str
    name: str


class ServicePrincipalOut(Output):
    id: int
    name: str
    kind: str


class ContextStatusOut(Output):
    user: UserOut | None = Field(description="The person acted for (a service principal's acting user).")
    service_principal: ServicePrincipalOut | None
    language: str
    time_zone: str
    now: dt.datetime = Field(description="Now, in the time zone.")
    surface: str
    modules: dict[str, bool] = Field(description="Installable module → installed.")


class SessionStatusOut(Output):
    run_id: int | str | None
    session_id: int | str | None
    surface: str
    acting_as: str
    now: dt.datetime
    time_zone: str
    visible_tools: int = Field(description="How many tools you can see here.")
