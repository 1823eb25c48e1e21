"""`dispatch(name, raw_args, ctx)`: the one way any surface executes a tool.

Steps, in order, each a small function that returns a failure result or None:
resolve → module gate → principal/allowlist/scope → user context → argument validation →
preflight (the tool's hard limits) → approval (`apps.tools.approval`: allow, stage or deny) →
execution in a transaction → serialization check → output check (against the tool's declared
`output=` model, see `_check_output`) → mutation publish (on
commit, by the services that recorded it; the direct result leaves what the all-user fan-out
delivers to the stream: `mutations.services.direct_ui_actions`). Every call leaves one compact
audit row.

Validation runs before the approval step because the approval operation is derived from the
call's validated *content* (e.g. the SQL verb), never from a free `action` argument.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import close_old_connections, connections, transaction
from django.utils import translation
from django.utils.translation import gettext as _
from pydantic import BaseModel, ValidationError

from apps.accounts.principal import PrincipalError
from apps.core import jsontext
from apps.core.errors import DomainError
from apps.mutations.origin import mutation_origin
from apps.mutations.services import direct_ui_actions
from apps.tools import approval, gating, registry
from apps.tools.context import ToolContext
from apps.tools.registry import Tool
from apps.tools.results import ToolOutput, ToolResult

logger = logging.getLogger(__name__)
MAX_PARALLEL = 8


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Any
    call_id: str = ""  # the model's tool call id: a staged call records it (its run resumes there)


class _SerializationFailed(Exception):
    """Raised inside the transaction so an unserializable output rolls the change back."""


class OutputMismatch(AssertionError):
    """A tool answered outside its declared output model, in strict mode (tests, DEBUG): a loud
    failure that leaves `dispatch` (the call's transaction rolls back), never a result."""


def strict_outputs() -> bool:
    """Whether an output outside its declared model fails the call (`CLAPILOT_TOOL_OUTPUT_STRICT`,
    default: DEBUG; the test session turns it on) or is only logged (production)."""
    return bool(getattr(settings, "CLAPILOT_TOOL_OUTPUT_STRICT", settings.DEBUG))


def _check_output(t: Tool, output: Any) -> None:
    """The output (already plain JSON) against the tool's declared model, as `@endpoint` checks a
    REST answer. Unlike REST, the tool's output is passed on unchanged, not re-serialized through
    the model: clients keep exactly the shape they had. In production a mismatch (an extra key, a
    missing one) is logged and the output still answered, so a running office never loses a call
    over drift; only an output that cannot be serialized at all fails
    (`CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED`)."""
    if t.output_model is None:
        return
    try:
        t.output_model.model_validate(output)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(output)'}: {e['msg']}"
            for e in exc.errors(include_url=False, include_input=False)[:10]
        )
        if strict_outputs():
            raise OutputMismatch(
                f"{t.name} answered outside its output model {t.output_model.__name__}: {problems}"
            ) from None
        logger.warning(
            "tool %s answered outside its output model %s: %s", t.name, t.output_model.__name__, problems
        )


# --- the steps ------------------------------------------------------------------------------
def _resolve(name: str) -> Tool | ToolResult:
    t = registry.get(name) if isinstance(name, str) else None
    if t is None:
        return ToolResult.failure(
            "unknown_tool",
            _("There is no tool named “%(name)s”.") % {"name": jsontext.without_nul(name)[:100]},
        )
    return t


def _check_module(t: Tool) -> ToolResult | None:
    if t.is_gated and not gating.is_installed(t.module):
        return ToolResult.failure(
            f"module_not_installed:{t.module}",
            _("The module “%(slug)s” is not installed.") % {"slug": t.module},
            output={"module": t.module},
        )
    return None


def _check_principal(t: Tool, ctx: ToolContext) -> ToolResult | None:
    try:
        if not ctx.active_checked:
            ctx.principal.refresh_active()
    except PrincipalError:
        return ToolResult.failure("forbidden", _("This identity is disabled and may not use tools."))
    if ctx.surface not in t.surfaces:
        return ToolResult.failure("forbidden", _("This tool is not available here."))
    if ctx.allowed_tools is not None and t.name not in ctx.allowed_tools:
        return ToolResult.failure(
            "forbidden", _("This agent is not allowed to use “%(name)s”.") % {"name": t.name}
        )
    if not t.reachable_with(ctx.scopes):
        if not t.api_scopes:
            return ToolResult.failure("forbidden", _("The API key lacks the scope “tools:execute”."))
        scope = ", ".join(sorted(t.api_scopes))  # e.g. memory:write reaches memory_store alone
        return ToolResult.failure(
            "forbidden", _("The API key lacks the scope “%(scope)s” (or “tools:execute”).") % {"scope": scope}
        )
    return None


def _check_user_context(t: Tool, ctx: ToolContext) -> ToolResult | None:
    if t.requires_user and ctx.principal.audit_actor is None:
        return ToolResult.failure("CLAPILOT_NO_USER_CONTEXT", _("This tool needs a signed-in user."))
    return None


def _field_errors(exc: ValidationError) -> list[dict]:
    errors = []
    for err in exc.errors(include_url=False, include_input=False):
        field = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        errors.append({"field": field, "message": err["msg"], "type": err["type"]})
    return errors


def _validate(t: Tool, raw_args: Any) -> BaseModel | ToolResult:
    if raw_args is None:
        raw_args = {}
    if isinstance(raw_args, str):
        try:
            raw_args = jsontext.loads(raw_args or "{}")
        except ValueError:
            return ToolResult.failure("invalid_arguments", _("The arguments are not valid JSON."))
        except DomainError as exc:  # too deep, a number too long, a NUL character
            return ToolResult.failure("invalid_arguments", exc.message, output=exc.details)
    if not isinstance(raw_args, dict):
        return ToolResult.failure("invalid_arguments", _("The arguments must be a JSON object."))
    # Strict-mode models send null for optional fields: let pydantic apply the defaults.
    fields = t.args_model.model_fields
    cleaned = {
        k: v for k, v in raw_args.items() if not (v is None and k in fields and not fields[k].is_required())
    }
    try:
        return t.args_model.model_validate(cleaned)
    except ValidationError as exc:
        errors = _field_errors(exc)
        summary = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
        return ToolResult.failure(
            "invalid_arguments",
            _("Invalid arguments for %(name)s: %(errors)s") % {"name": t.name, "errors": summary},
            output={"field_errors": errors},
        )


def _preflight(t: Tool, args: BaseModel, ctx: ToolContext) -> ToolResult | None:
    """The tool's hard limits, before anyone is asked to approve a call that could never run."""
    if t.preflight is None:
        return None
    try:
        t.preflight(args, ctx)
    except DomainError as exc:
        return ToolResult.failure(exc.code or "tool_error", exc.message, output=exc.details)
    return None


def _approval(t: Tool, args: BaseModel, ctx: ToolContext) -> ToolContext | ToolResult:
    """The approval step: the context to execute with (marked approved when a policy, a standing
    approval or a person let the call pass), or the answer for a refused or staged call."""
    if ctx.approved:  # a person approved exactly this call (apps.approvals executes it)
        return ctx
    step = approval.step()
    if step is None:
        return ctx
    try:
        decision = step.decide(t, args, ctx)
    except DomainError as exc:  # the object a narrowed standing approval would cover is not there
        return ToolResult.failure(exc.code or "tool_error", exc.message, output=exc.details)
    except Exception:
        return _step_failed(t)
    if decision.verdict == approval.ALLOW:
        return replace(ctx, approved=True) if decision.approved else ctx
    if decision.verdict == approval.DENY:
        return ToolResult.failure(
            "approval_forbidden",
            _("“%(name)s” is forbidden for this agent; do not try it again.") % {"name": t.name},
            output={"operation": decision.operation},
        )
    try:
        staged = step.stage(t, args, decision, ctx)
    except DomainError as exc:  # the preview found no such object, for instance
        return ToolResult.failure(exc.code or "tool_error", exc.message, output=exc.details)
    except Exception:
        return _step_failed(t)
    output = {
        "tool": t.name,
        "staged_id": staged.staged_id,
        "preview": staged.preview,
        "operation": str(staged.operation),
        "reason": str(staged.reason),
    }
    if staged.headless_rule:
        message = (
            _("Nobody is present to approve this call, so it was not executed; its owner is told.")
            if staged.staged_id is not None
            else _("Nobody is present to approve this call, so it was refused.")
        )
        return ToolResult.failure("approval_unavailable_headless", message, output=output)
    return ToolResult.failure(
        "approval_required",
        _(
            "This call waits for a person's approval and was not executed yet. Do not retry it: "
            "the result follows once a person decides."
        ),
        output=output,
    )


def _step_failed(t: Tool) -> ToolResult:
    logger.exception("the approval step failed for tool %s", t.name)
    return ToolResult.failure(
        "CLAPILOT_TOOL_EXECUTION_FAILED",
        _("The tool “%(name)s” failed unexpectedly. Nothing was changed.") % {"name": t.name},
    )


def _transaction_for(t: Tool):
    """Writing tools run in one transaction (all or nothing, events published on commit). A
    read-only tool gains nothing from one at READ COMMITTED (each statement has its own snapshot
    either way) and skipping it saves two round trips per call; a meta-tool (`atomic=False`)
    leaves it to the inner dispatch."""
    return contextlib.nullcontext() if t.read_only or not t.atomic else transaction.atomic()


def _execute(t: Tool, args: BaseModel, ctx: ToolContext, audit: _Audit) -> ToolResult:
    caller = ctx.principal.user or ctx.principal.acting_user
    try:
        with (
            _transaction_for(t),
            mutation_origin(tool=t.name, run_id=ctx.run_id, actor_id=caller.pk if caller else None) as origin,
        ):
            produced = t.handler(ctx, args)
            out = produced if isinstance(produced, ToolOutput) else ToolOutput(output=produced)
            try:
                output = json.loads(json.dumps(out.output, cls=DjangoJSONEncoder))
            except (TypeError, ValueError) as exc:
                raise _SerializationFailed from exc
            _check_output(t, output)
            if not t.read_only:
                audit.write(ok=True, code="")  # rides in the tool's own transaction: no extra commit
    except OutputMismatch:
        logger.error("tool %s: output mismatch (strict mode)", t.name)
        raise
    except _SerializationFailed:
        logger.exception("tool %s returned an unserializable output", t.name)
        return ToolResult.failure(
            "CLAPILOT_TOOL_OUTPUT_SERIALIZATION_FAILED", _("The tool's result could not be prepared.")
        )
    except DomainError as exc:
        return ToolResult.failure(exc.code or "tool_error", exc.message, output=exc.details)
    except Exception:
        logger.exception("tool %s failed", t.name)
        return ToolResult.failure(
            "CLAPILOT_TOOL_EXECUTION_FAILED",
            _("The tool “%(name)s” failed unexpectedly. Nothing was changed.") % {"name": t.name},
        )
    if t.reads_foreign_content:
        ctx.foreign.seen = True  # the run has read outside text: the approval step tightens
    events = origin.collected
    return ToolResult(
        ok=True,
        output=output,
        ui_actions=direct_ui_actions(out.ui_actions, events, caller.pk if caller else None),
        trigger_reload=out.trigger_reload or any(e.trigger_reload for e in events),
        refresh_topic=out.refresh_topic or next((e.refresh_topic for e in events if e.refresh_topic), ""),
        mutation_event_id=events[-1].id if events else None,
    )


# --- the pipeline ---------------------------------------------------------------------------
def dispatch(name: str, raw_args: Any, ctx: ToolContext, *, call_id: str = "") -> ToolResult:
    if call_id and call_id != ctx.call_id:
        ctx = replace(ctx, call_id=call_id)
    audit = _Audit(name, raw_args, ctx)
    with translation.override(ctx.principal.language):
        result = _run_steps(name, raw_args, ctx, audit)
    if not audit.written:  # failures: their transaction rolled back, record them on their own
        audit.write_alone(ok=result.ok, code=result.code or "")
    return result


def _run_steps(name: str, raw_args: Any, ctx: ToolContext, audit: _Audit) -> ToolResult:
    resolved = _resolve(name)
    if isinstance(resolved, ToolResult):
        return resolved
    t = resolved
    for check in (_check_module, lambda t: _check_principal(t, ctx), lambda t: _check_user_context(t, ctx)):
        failure = check(t)
        if failure is not None:
            return failure
    args = _validate(t, raw_args)
    if isinstance(args, ToolResult):
        return args
    failure = _preflight(t, args, ctx)
    if failure is not None:
        return failure
    decided = _approval(t, args, ctx)
    if isinstance(decided, ToolResult):
        return decided
    return _execute(t, args, decided, audit)


def args_digest(raw_args: Any) -> str:
    try:
        canonical = json.dumps(raw_args, sort_keys=True, cls=DjangoJSONEncoder, default=str)
    except (TypeError, ValueError):
        canonical = repr(raw_args)
    return hashlib.sha256(canonical.encode()).hexdigest()


class _Audit:
    """One compact row per call: who, which tool, outcome, duration, a digest of the arguments
    (never their content). Written with one raw INSERT because it runs on every call."""

    SQL = (
        'INSERT INTO "tools_toolexecution" (tool, user_id, service_principal_id, surface, ok, code,'
        " duration_ms, run_id, args_digest, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, now())"
    )

    def __init__(self, name: Any, raw_args: Any, ctx: ToolContext) -> None:
        self.name, self.raw_args, self.ctx = name, raw_args, ctx
        self.started = time.perf_counter()
        self.written = False

    def write(self, *, ok: bool, code: str, prefix: str = "") -> None:
        p = self.ctx.principal
        actor = p.user or p.acting_user
        with transaction.get_connection().cursor() as cur:
            cur.execute(
                prefix + self.SQL,
                [
                    jsontext.without_nul(self.name)[:100],  # PostgreSQL text cannot hold a NUL
                    actor.pk if actor else None,
                    p.service.pk if p.service else None,
                    self.ctx.surface,
                    ok,
                    code[:100],
                    round((time.perf_counter() - self.started) * 1000, 3),
                    self.ctx.run_id or "",
                    args_digest(self.raw_args),
                ],
            )
        self.written = True

    def write_alone(self, *, ok: bool, code: str) -> None:
        """Audit a read-only call or a failure on its own. Outside any transaction this is one
        round trip: PostgreSQL runs the two statements as one implicit transaction that commits
        without waiting for the WAL flush (a crash may lose the last rows, never corrupts)."""
        try:
            if transaction.get_connection().in_atomic_block:
                with transaction.atomic():  # a savepoint inside the caller's transaction
                    self.write(ok=ok, code=code)
            else:
                self.write(ok=ok, code=code, prefix="SET LOCAL synchronous_commit TO OFF; ")
        except Exception:  # the audit must never turn a finished call into a failure
            logger.exception("could not write the audit row for tool %s", self.name)


# --- batches --------------------------------------------------------------------------------
def _is_read_only(call: ToolCall) -> bool:
    t = registry.get(call.name) if isinstance(call.name, str) else None
    if t is None:
        return False
    if t.name == "tool_execute" and isinstance(call.arguments, dict):
        target = registry.get(str(call.arguments.get("tool", "")))
        return target is not None and target.read_only
    return t.read_only


def _in_own_connection(fn: Callable[[], ToolResult]) -> ToolResult:
    try:
        return fn()
    finally:
        connections.close_all()  # worker threads must not leak database connections


def execute_batch(calls: list[ToolCall], ctx: ToolContext) -> list[ToolResult]:
    """Run one model turn's tool calls. Concurrently only when every call is read-only;
    any writing call makes the whole batch sequential in the model's order. Results come back
    in call order either way."""
    if len(calls) > 1 and all(_is_read_only(c) for c in calls):
        close_old_connections()
        with ThreadPoolExecutor(max_workers=min(len(calls), MAX_PARALLEL)) as pool:
            # Each thread runs in a copy of the caller's context (contextvars: e.g. the run's
            # neutralization demands), as the sequential path does.
            futures = [
                pool.submit(
                    contextvars.copy_context().run,
                    _in_own_connection,
                    lambda c=c: dispatch(c.name, c.arguments, ctx, call_id=c.call_id),
                )
                for c in calls
            ]
            return [f.result() for f in futures]
    return [dispatch(c.name, c.arguments, ctx, call_id=c.call_id) for c in calls]
