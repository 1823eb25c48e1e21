"""Deciding on staged calls: approve (executes exactly the staged call, once), deny, expire.

Only the person behind a call (the run's user, the API key's creator) or an admin decides;
anyone else is answered "not found". A decision locks the staged row, so ten approvals at once
(a double click, two tabs, two admins) execute the call once: the first one holds the lock while
the call runs, the others then find it decided. The call is executed through the dispatcher with
the principal rebuilt from the staged row (never from the request) and `approved=True`, in the
deciding transaction: a crash leaves it pending, never half-done.

A decision then resumes the run: the call's final result replaces the `approval_required`
answer in the transcript and, once nothing else of the run waits, a worker continues the loop.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import ValidationError

from apps.accounts.principal import Principal, PrincipalError
from apps.agent import waiting
from apps.agent.models import Run
from apps.approvals import standing
from apps.approvals.errors import (
    AlreadyDecided,
    ApprovalDenied,
    ApprovalExpired,
    ArgumentsChanged,
    StagedCallNotFound,
)
from apps.approvals.models import StagedCall
from apps.approvals.replay import context_of
from apps.mutations import actions
from apps.mutations.services import record_mutation
from apps.tools import registry
from apps.tools.dispatcher import args_digest, dispatch
from apps.tools.results import ToolResult

logger = logging.getLogger(__name__)

S = StagedCall.Status
TOPIC = "approvals"  # refresh topic: the Freigaben page, its badge, the review queue
PENDING_LIST = "approvals-pending"  # data-list of the open calls on the Freigaben page
DECIDED = (S.APPROVED, S.EXECUTED, S.FAILED)  # what counts as an approval (suggestions)


# --- who sees what --------------------------------------------------------------------------
def decidable(principal: Principal, *, everyone: bool = False) -> QuerySet[StagedCall]:
    """The staged calls the principal decides: their own; with `everyone`, an admin's view of
    all of them. A service principal decides nothing (a person must)."""
    user = principal.user
    if user is None:
        return StagedCall.objects.none()
    rows = StagedCall.objects.select_related("run", "user", "decided_by")
    if everyone and user.is_admin:
        return rows
    return rows.filter(user=user)


def get_staged(principal: Principal, staged_id: Any) -> StagedCall:
    staged = _visible(principal).filter(pk=_int(staged_id)).first()
    if staged is None:
        raise StagedCallNotFound(_("This approval request does not exist or is not yours to decide."))
    return staged


def pending(principal: Principal, *, everyone: bool = False) -> QuerySet[StagedCall]:
    return decidable(principal, everyone=everyone).filter(status=S.PENDING, expires_at__gt=timezone.now())


def pending_count(user) -> int:
    """The navigation badge: the person's own calls waiting for them."""
    if user is None or not user.is_authenticated:
        return 0
    return StagedCall.objects.filter(user=user, status=S.PENDING, expires_at__gt=timezone.now()).count()


def announce_staged(staged: StagedCall) -> None:
    """The person's open pages learn of a new staged call: the Freigaben page, its navigation
    badge and the review queue refetch (for staging to call once the row is written)."""
    if staged.user_id is not None and staged.status == S.PENDING:
        record_mutation(audience="user", user=staged.user, topic="approvals.staged", refresh_topic=TOPIC)


def decided(principal: Principal, *, everyone: bool = False) -> QuerySet[StagedCall]:
    return decidable(principal, everyone=everyone).exclude(status=S.PENDING).order_by("-decided_at", "-id")


def _visible(principal: Principal) -> QuerySet[StagedCall]:
    return decidable(principal, everyone=True)


# --- deciding -------------------------------------------------------------------------------
def approve(
    principal: Principal,
    staged_id: Any,
    *,
    allow_alike: bool = False,
    narrow: bool = False,
    days: int | None = None,
) -> StagedCall:
    """Execute exactly the staged call, once, and resume its run with the result. `allow_alike`
    also grants a standing approval for this agent + tool + operation (`narrow`: only for the
    call's board, folder or client; `days`: its lifetime). A call already decided answers
    `approval_already_decided`; changed arguments are refused (`approval_arguments_changed`) and
    the run learns it."""
    refusal: Exception | None = None
    with transaction.atomic():
        staged = _lock(principal, staged_id)
        if _closed_if_expired(staged):
            refusal = AlreadyDecided(
                _("Nobody decided in time: the request has expired."), details=_state(staged)
            )
        else:
            scope = standing.check_grantable(staged, narrow=narrow, days=days) if allow_alike else None
            _decide(staged, principal, S.APPROVED)
            try:
                result = _execute(staged)
            except ArgumentsChanged as exc:
                result, refusal = ToolResult.failure(exc.code, exc.message), exc
            staged.result = _stored(result)
            staged.status = S.EXECUTED if result.ok else S.FAILED
            staged.save(update_fields=["status", "result"])
            if allow_alike and refusal is None:
                standing.grant(principal, staged, scope=scope, days=days)
            _settled(staged, "approved")
    if refusal is not None:
        raise refusal
    return staged


def deny(principal: Principal, staged_id: Any) -> StagedCall:
    """Refuse the staged call: its run continues with `ok:false` `approval_denied`."""
    with transaction.atomic():
        staged = _lock(principal, staged_id)
        if _closed_if_expired(staged):
            expired = staged
        else:
            expired = None
            _decide(staged, principal, S.DENIED)
            _close(
                staged, S.DENIED, ApprovalDenied.code, _("A person denied this tool call. Do not retry it.")
            )
    if expired is not None:
        raise AlreadyDecided(_("Nobody decided in time: the request has expired."), details=_state(expired))
    return staged


def expire_due(now: datetime | None = None, *, limit: int = 500) -> int:
    """The beat job: pending calls past their expiry answer `approval_expired` and their runs go
    on. Rows a decision holds right now are skipped (that decision settles them)."""
    now = now or timezone.now()
    ids = list(
        StagedCall.objects.filter(status=S.PENDING, expires_at__lte=now)
        .order_by("expires_at")
        .values_list("pk", flat=True)[:limit]
    )
    done = 0
    for pk in ids:
        with transaction.atomic():
            staged = (
                StagedCall.objects.select_for_update(skip_locked=True)
                .filter(pk=pk, status=S.PENDING, expires_at__lte=now)
                .first()
            )
            if staged is None:
                continue
            _expire(staged)
            done += 1
    return done


def deny_for_cancelled_run(run: Run) -> int:
    """`agent.run_cancelled`: a run cancelled while it waited denies its pending calls (nothing
    runs later for a run nobody continues)."""
    done = 0
    for pk in StagedCall.objects.filter(run=run, status=S.PENDING).values_list("pk", flat=True):
        with transaction.atomic():
            staged = StagedCall.objects.select_for_update().filter(pk=pk, status=S.PENDING).first()
            if staged is None:
                continue
            staged.decided_at = timezone.now()
            staged.save(update_fields=["decided_at"])
            _close(
                staged, S.DENIED, ApprovalDenied.code, _("The run was cancelled; the call was not executed.")
            )
            done += 1
    return done


# --- the steps ------------------------------------------------------------------------------
def _lock(principal: Principal, staged_id: Any) -> StagedCall:
    visible = _visible(principal).filter(pk=_int(staged_id)).values_list("pk", flat=True).first()
    staged = StagedCall.objects.select_for_update().filter(pk=visible).first() if visible else None
    if staged is None:
        raise StagedCallNotFound(_("This approval request does not exist or is not yours to decide."))
    if staged.status != S.PENDING:
        raise AlreadyDecided(_("This request has been decided already."), details=_state(staged))
    return staged


def _closed_if_expired(staged: StagedCall) -> bool:
    if staged.expires_at > timezone.now():
        return False
    _expire(staged)
    return True


def _expire(staged: StagedCall) -> None:
    _close(
        staged,
        S.EXPIRED,
        ApprovalExpired.code,
        _("Nobody approved this tool call in time; it was not executed."),
    )


def _decide(staged: StagedCall, principal: Principal, status: str) -> None:
    staged.status = status
    staged.decided_by = principal.user
    staged.decided_at = timezone.now()
    staged.save(update_fields=["status", "decided_by", "decided_at"])


def _close(staged: StagedCall, status: str, code: str, message: str) -> None:
    staged.status = status
    staged.result = _stored(ToolResult.failure(code, message, output={"staged_id": staged.pk}))
    staged.save(update_fields=["status", "result"])
    _settled(staged, {S.DENIED: "denied", S.EXPIRED: "expired"}.get(status, status))


def _execute(staged: StagedCall) -> ToolResult:
    t = registry.get(staged.tool)
    if t is None:
        return ToolResult.failure(
            "unknown_tool", _("There is no tool named “%(name)s”.") % {"name": staged.tool}
        )
    changed = ArgumentsChanged(_("The stored arguments of this request were changed; it is not executed."))
    if args_digest(staged.arguments) != staged.arguments_digest:
        raise changed
    try:
        t.args_model.model_validate(staged.arguments)
    except ValidationError:
        raise changed from None
    try:
        ctx = context_of(staged)
    except PrincipalError:
        return ToolResult.failure("forbidden", _("This identity is disabled and may not use tools."))
    return dispatch(staged.tool, staged.arguments, ctx)


def _settled(staged: StagedCall, decision: str) -> None:
    """The decision reaches the run (transcript, APPROVAL event, resume) and the person's pages."""
    result = staged.result or {}
    run = staged.run
    if run is not None:
        waiting.settle_call(
            run,
            staged.call_id,
            staged.tool,
            result,
            {
                "staged_id": staged.pk,
                "decision": decision,
                "status": staged.status,
                "ok": bool(result.get("ok")),
                "code": result.get("code") or "",
                "message": result.get("message") or "",
            },
        )
        if not StagedCall.objects.filter(run=run, status=S.PENDING).exclude(pk=staged.pk).exists():
            waiting.resume(run)
    if staged.user_id is not None:
        record_mutation(
            audience="user",
            user=staged.user,
            topic="approvals.decided",
            refresh_topic=TOPIC,
            ui_actions=[actions.remove(PENDING_LIST, str(staged.pk))],
        )


def _stored(result: ToolResult) -> dict:
    """The result as the model reads it in the transcript (the runtime's tool-message shape)."""
    return result.as_dict()


def _state(staged: StagedCall) -> dict:
    return {"staged_id": staged.pk, "status": staged.status, "result": staged.result or {}}


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
