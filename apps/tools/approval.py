"""The approval step of the dispatcher: an extension point the tools app owns, with exactly one
contributor (`apps.approvals`), declared on its `DomainApp`:

    extends = {"tools.approval": ["apps.approvals.policy.STEP"]}

A contribution is an object with

* `offered(tool, ctx) -> bool`: False hides the tool from every list the caller sees (the run's
  toolbox, the catalog meta-tools, `/api/v1/tools`, MCP `tools/list`);
* `decide(tool, args, ctx) -> Decision`: allow, stage or deny one validated call;
* `stage(tool, args, decision, ctx) -> Staged`: store a staged call (or, without a
  person present, record it under the instance's headless rule) and describe it in words.

Without a contributor (the approvals app not installed) every call passes, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from apps.core import plugins
from apps.tools.context import ToolContext
from apps.tools.registry import Tool

POINT = "tools.approval"

ALLOW: Literal["allow"] = "allow"
STAGE: Literal["stage"] = "stage"
DENY: Literal["deny"] = "deny"


@dataclass(frozen=True)
class Decision:
    verdict: Literal["allow", "stage", "deny"]
    operation: str
    # Why a call waits (StagedCall.Reason: default, policy, foreign_content, agent_change).
    reason: str = ""
    # Allowed because a policy or a standing approval lets it pass (not merely by default).
    approved: bool = False


@dataclass(frozen=True)
class Staged:
    """What the dispatcher tells the caller about a staged call. `staged_id` is None when the
    headless rule refused the call without recording it."""

    staged_id: int | None
    preview: str
    operation: str
    reason: str
    headless_rule: str = ""  # "record" or "deny" when nobody was present


class ApprovalStep(Protocol):
    def offered(self, tool: Tool, ctx: ToolContext) -> bool: ...

    def decide(self, tool: Tool, args: BaseModel, ctx: ToolContext) -> Decision: ...

    def stage(self, tool: Tool, args: BaseModel, decision: Decision, ctx: ToolContext) -> Staged: ...


def step() -> ApprovalStep | None:
    """The one contributor, or None. Two contributors are a wiring error."""
    found: tuple[Any, ...] = plugins.contributions(POINT)
    if len(found) > 1:
        raise plugins.ImproperlyDeclared(f"{POINT} takes one contributor, got {len(found)}")
    return found[0] if found else None


def offered(tool: Tool, ctx: ToolContext) -> bool:
    contributor = step()
    return contributor is None or contributor.offered(tool, ctx)
