"""The approval step (`tools.approval`): what an agent may do with a tool without asking.

Per agent (the main copilot: specialist None; later each specialist) and tool, a `Policy` row:
`allowed` (erlaubt) operations run, `*` meaning every operation not forbidden; `forbidden`
(verboten) ones are never offered nor run; with `allowed` set, everything else is staged for a
person, not refused. Without a policy (or with an empty `allowed`) the tool's default decides.
Group rows forbid tools for the main copilot for the members of a group.

Standing approvals (Dauerfreigaben) let a staged operation pass. Two things nothing lifts but a
person's decision on the very call: changes to agents (`always_ask`), and, once a run has read
foreign content, every operation that is staged by default.

Policies are read from a per-process cache (the table is small and read on every call), dropped
at once in this process when a row is saved or deleted and reloaded by every other process
within `CLAPILOT_APPROVAL_POLICY_SECONDS`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel

from apps.accounts.principal import Principal
from apps.approvals.errors import PolicyAgentChange, PolicyInvalid
from apps.approvals.models import Policy, StagedCall, StandingApproval
from apps.core.errors import Forbidden
from apps.tools import registry
from apps.tools.approval import ALLOW, DENY, STAGE, Decision, Staged
from apps.tools.context import ToolContext
from apps.tools.registry import RUN, Tool

ALL = "*"
Reason = StagedCall.Reason


@dataclass(frozen=True)
class Rule:
    allowed: frozenset[str]
    forbidden: frozenset[str]

    def forbids(self, operation: str) -> bool:
        return operation in self.forbidden or ALL in self.forbidden

    def allows(self, operation: str) -> bool:
        return operation in self.allowed or ALL in self.allowed


@dataclass(frozen=True)
class Rules:
    """Every policy row, indexed for the hot path."""

    agent: dict[tuple[int | None, str], Rule]  # (specialist, tool) → the agent's rule
    groups: dict[str, dict[int, frozenset[str]]]  # tool → group → forbidden (main copilot)
    loaded_at: float


_lock = threading.Lock()
_rules: Rules | None = None
_groups_of: dict[int, frozenset[int]] = {}  # user → group ids, dropped with the rules


def _ttl() -> float:
    return float(getattr(settings, "CLAPILOT_APPROVAL_POLICY_SECONDS", 5.0))


def rules() -> Rules:
    global _rules
    current = _rules
    if current is not None and time.monotonic() - current.loaded_at < _ttl():
        return current
    agent: dict[tuple[int | None, str], Rule] = {}
    groups: dict[str, dict[int, frozenset[str]]] = {}
    for specialist, group, tool, allowed, forbidden in Policy.objects.values_list(
        "specialist_id", "group_id", "tool", "allowed", "forbidden"
    ):
        if group is None:
            agent[(specialist, tool)] = Rule(frozenset(allowed or ()), frozenset(forbidden or ()))
        elif specialist is None:
            groups.setdefault(tool, {})[group] = frozenset(forbidden or ())
    with _lock:
        _groups_of.clear()
        _rules = Rules(agent, groups, time.monotonic())
    return _rules


def forget(*args, **kwargs) -> None:
    """Drop the cache (a policy or a group membership changed); also once the change commits."""
    global _rules
    with _lock:
        _rules = None
        _groups_of.clear()


def policy_changed(sender, **kwargs) -> None:
    forget()
    transaction.on_commit(forget)


def preload_empty() -> None:
    """Tests: start from a known empty table without a query (rows of an earlier test were
    rolled back without a signal)."""
    global _rules
    with _lock:
        _groups_of.clear()
        _rules = Rules({}, {}, float("inf"))


# --- the decision ---------------------------------------------------------------------------
def agent_of(ctx: ToolContext) -> int | None:
    return ctx.agent_pk


def _person(ctx: ToolContext):
    p = ctx.principal
    return p.user or p.acting_user


def _group_ids(user_id: int) -> frozenset[int]:
    found = _groups_of.get(user_id)
    if found is None:
        from django.contrib.auth import get_user_model

        found = frozenset(
            get_user_model().groups.through.objects.filter(user_id=user_id).values_list("group_id", flat=True)
        )
        _groups_of[user_id] = found
    return found


def _group_forbids(current: Rules, tool: Tool, operation: str | None, ctx: ToolContext) -> bool:
    """A group row forbids the tool (or this operation) for the main copilot of its members."""
    by_group = current.groups.get(tool.name)
    if not by_group:
        return False
    person = _person(ctx)
    if person is None:
        return False
    for group in _group_ids(person.pk) & by_group.keys():
        forbidden = by_group[group]
        if ALL in forbidden:
            return True
        if operation in forbidden if operation is not None else set(tool.operations) <= forbidden:
            return True
    return False


def offered(tool: Tool, ctx: ToolContext) -> bool:
    """False when the agent may use none of the tool's operations."""
    current = rules()
    specialist = agent_of(ctx)
    rule = current.agent.get((specialist, tool.name))
    if rule is not None and rule.forbidden and all(rule.forbids(op) for op in tool.operations):
        return False
    return not (specialist is None and _group_forbids(current, tool, None, ctx))


def decide(tool: Tool, args: BaseModel, ctx: ToolContext) -> Decision:
    operation = tool.operation(args)
    current = rules()
    specialist = agent_of(ctx)
    rule = current.agent.get((specialist, tool.name))
    if rule is not None and rule.forbids(operation):
        return Decision(DENY, operation)
    if specialist is None and _group_forbids(current, tool, operation, ctx):
        return Decision(DENY, operation)
    if tool.always_ask:
        return Decision(STAGE, operation, Reason.AGENT_CHANGE)
    by_default = tool.default_for(operation)
    tightened = by_default != RUN and ctx.foreign.seen
    if rule is not None and rule.allowed:
        if rule.allows(operation):
            if tightened:
                return Decision(STAGE, operation, Reason.FOREIGN_CONTENT)
            return Decision(ALLOW, operation, approved=True)
        reason = Reason.POLICY
    elif by_default == RUN:
        return Decision(ALLOW, operation)
    else:
        reason = Reason.FOREIGN_CONTENT if tightened else Reason.DEFAULT
    if not tightened and standing_approval_for(tool, args, operation, ctx):
        return Decision(ALLOW, operation, approved=True)
    return Decision(STAGE, operation, reason)


def standing_approval_for(tool: Tool, args: BaseModel, operation: str, ctx: ToolContext) -> bool:
    """A Dauerfreigabe of the person behind the call for exactly this agent, tool and operation,
    not expired nor revoked, unnarrowed or narrowed to the object the call touches."""
    person = _person(ctx)
    if person is None:
        return False
    narrowed = Q(scope_kind="")
    touched = tool.scope(args, ctx) if tool.scope is not None else None
    if touched is not None:
        narrowed |= Q(scope_kind=touched[0], scope_id=touched[1])
    return (
        StandingApproval.objects.filter(
            narrowed,
            user_id=person.pk,
            specialist_id=agent_of(ctx),
            tool=tool.name,
            operation=operation,
            revoked_at__isnull=True,
        )
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .exists()
    )


class PolicyStep:
    """The contribution to `tools.approval`."""

    def offered(self, tool: Tool, ctx: ToolContext) -> bool:
        return offered(tool, ctx)

    def decide(self, tool: Tool, args: BaseModel, ctx: ToolContext) -> Decision:
        return decide(tool, args, ctx)

    def stage(self, tool: Tool, args: BaseModel, decision: Decision, ctx: ToolContext) -> Staged:
        from apps.approvals import staging

        return staging.stage(tool, args, decision, ctx)


STEP = PolicyStep()


# --- editing policies (the admin and the settings page call these) ---------------------------
def check_policy(
    *,
    tool: str,
    allowed: Any = (),
    forbidden: Any = (),
    specialist_id: int | None = None,
    group_id: int | None = None,
) -> tuple[list[str], list[str]]:
    """The cleaned (allowed, forbidden) lists, or a field error: an unknown tool or operation,
    an operation both allowed and forbidden, a group row that allows something or names a
    specialist. Letting an agent change agents without asking is refused outright."""
    t = registry.get(tool) if isinstance(tool, str) else None
    if t is None:
        raise PolicyInvalid.field("tool", _("There is no tool named “%(name)s”.") % {"name": str(tool)[:100]})
    known = set(t.operations)
    cleaned: dict[str, list[str]] = {}
    errors: dict[str, str] = {}
    for name, values in (("allowed", allowed), ("forbidden", forbidden)):
        values = [] if values is None else values
        if isinstance(values, str) or not all(isinstance(v, str) for v in values):
            errors[name] = _("Give a list of operations.")
            continue
        ops = sorted({v.strip() for v in values if v.strip()})
        unknown = [v for v in ops if v != ALL and v not in known]
        if unknown:
            errors[name] = _("Unknown operations: %(unknown)s. “%(tool)s” has: %(known)s, or * for all.") % {
                "unknown": ", ".join(unknown),
                "tool": t.name,
                "known": ", ".join(t.operations),
            }
        cleaned[name] = ops
    if not errors:
        both = set(cleaned["allowed"]) & set(cleaned["forbidden"])
        if both:
            errors["forbidden"] = _("Allowed and forbidden at once: %(ops)s.") % {
                "ops": ", ".join(sorted(both))
            }
        if group_id is not None:
            if specialist_id is not None:
                errors["group"] = _("Group rows apply to the main copilot only.")
            if cleaned["allowed"]:
                errors["allowed"] = _("A group row can only forbid operations.")
            elif not cleaned["forbidden"]:
                errors["forbidden"] = _("Name the operations this group may not use, or * for all.")
    if errors:
        field, message = next(iter(errors.items()))
        raise PolicyInvalid(f"{field}: {message}", details={"field_errors": errors})
    if t.always_ask and cleaned["allowed"]:
        raise PolicyAgentChange(
            _("Changes to agents are always approved one by one; “%(tool)s” cannot be allowed.")
            % {"tool": t.name},
            details={"field_errors": {"allowed": _("Changes to agents always need a person's approval.")}},
        )
    return cleaned["allowed"], cleaned["forbidden"]


def _require_admin(principal: Principal) -> None:
    user = principal.user
    if user is None or not (user.is_staff or user.is_superuser):
        raise Forbidden(_("Only administrators edit approval policies."))


def save_policy(
    principal: Principal,
    *,
    tool: str,
    allowed: Any = (),
    forbidden: Any = (),
    specialist_id: int | None = None,
    group_id: int | None = None,
) -> Policy:
    """Create or replace the one policy of this agent (and group) for this tool."""
    _require_admin(principal)
    allowed, forbidden = check_policy(
        tool=tool, allowed=allowed, forbidden=forbidden, specialist_id=specialist_id, group_id=group_id
    )
    with transaction.atomic():
        policy, _created = Policy.objects.update_or_create(
            specialist_id=specialist_id,
            group_id=group_id,
            tool=tool,
            defaults={"allowed": allowed, "forbidden": forbidden},
        )
    return policy


def delete_policy(principal: Principal, policy_id: Any) -> int:
    _require_admin(principal)
    with transaction.atomic():
        deleted, _rows = Policy.objects.filter(pk=policy_id).delete()
    return deleted
