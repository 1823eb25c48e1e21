"""Standing approvals (Dauerfreigaben): "approve and allow alike in future".

A standing approval covers exactly one agent (the main copilot or a specialist) + tool +
operation for one person, optionally narrowed to the object of the call (its board, folder or
client), with an expiry; it is revocable. After three alike approvals within 14 days the card
suggests one, a person must accept it. Changes to agents are never covered (always one by one).
The policy step (`apps.approvals.policy`) reads the rows.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.approvals.errors import InvalidStandingApproval, StandingApprovalNotFound
from apps.approvals.models import StagedCall, StandingApproval
from apps.approvals.replay import context_of
from apps.mutations.services import record_mutation

SUGGEST_AFTER = 3  # alike approvals …
SUGGEST_WINDOW = timedelta(days=14)  # … within this window suggest a standing approval
MAX_DAYS = 365
TOPIC = "approvals"


def default_days() -> int:
    return int(getattr(settings, "CLAPILOT_STANDING_APPROVAL_DAYS", 90))


# --- the object of a call -------------------------------------------------------------------
def scope_of(staged: StagedCall) -> tuple[str, int] | None:
    """The board, folder or client the staged call acts on, as its tool declares it (`scope=` on
    the registration, the same the policy step matches standing approvals with). None: none."""
    from apps.tools import registry

    t = registry.get(staged.tool)
    if t is None or getattr(t, "scope", None) is None:
        return None
    try:
        return t.scope(t.args_model.model_validate(staged.arguments), context_of(staged))
    except Exception:  # gone, invisible or a changed contract: nothing to narrow to
        return None


def scope_label(kind: str, scope_id: int | None) -> str:
    names = {"board": _("board"), "folder": _("folder"), "client": _("client")}
    return f"{names.get(kind, kind)} #{scope_id}" if kind else _("everywhere")


# --- granting -------------------------------------------------------------------------------
def check_grantable(
    staged: StagedCall, *, narrow: bool = False, days: int | None = None
) -> tuple[str, int] | None:
    """Refuse before anything runs: agent changes, an out-of-range lifetime, a narrowing the
    call has no object for. Answers the object to narrow to (None: unnarrowed); it is looked up
    now, as the call may delete it."""
    if staged.reason == StagedCall.Reason.AGENT_CHANGE:
        raise InvalidStandingApproval(
            _("Changes to agents are always approved one by one; no standing approval covers them.")
        )
    if days is not None and not 1 <= int(days) <= MAX_DAYS:
        raise InvalidStandingApproval.field("days", _("Between 1 and %(max)s days.") % {"max": MAX_DAYS})
    if not narrow:
        return None
    scope = scope_of(staged)
    if scope is None:
        raise InvalidStandingApproval(
            _("This call names no board, folder or client to narrow the approval to.")
        )
    return scope


def grant(
    principal: Principal,
    staged: StagedCall,
    *,
    scope: tuple[str, int] | None = None,
    days: int | None = None,
) -> StandingApproval:
    """The standing approval for the staged call's person, agent, tool and operation (`scope`:
    narrowed to that object, from `check_grantable`). An active one for exactly the same gets
    the new expiry instead of a twin."""
    check_grantable(staged, days=days)
    kind, scope_id = scope or ("", None)
    expires = timezone.now() + timedelta(days=int(days or default_days()))
    # What the approval is for: the active twin is looked up by it, a new one created with it.
    same_call = {
        "user_id": staged.user_id,
        "specialist_id": staged.specialist_id,
        "tool": staged.tool,
        "operation": staged.operation,
        "scope_kind": kind,
        "scope_id": scope_id,
    }
    with transaction.atomic():
        same = active().select_for_update().filter(**same_call).first()
        if same is not None:
            same.expires_at = expires
            same.save(update_fields=["expires_at"])
            row = same
        else:
            row = StandingApproval.objects.create(**same_call, expires_at=expires, granted_by=principal.user)
        _announce(row)
    return row


def revoke(principal: Principal, standing_id: Any, *, as_admin: bool = False) -> StandingApproval:
    """End a standing approval now (its person, or an admin)."""
    with transaction.atomic():
        rows = StandingApproval.objects.select_for_update().filter(
            pk=_int(standing_id), revoked_at__isnull=True
        )
        user = principal.user
        if user is None:
            rows = rows.none()
        elif not (as_admin or user.is_admin):
            rows = rows.filter(user=user)
        row = rows.first()
        if row is None:
            raise StandingApprovalNotFound(_("This standing approval does not exist or is not yours."))
        row.revoked_at = timezone.now()
        row.revoked_by = user
        row.save(update_fields=["revoked_at", "revoked_by"])
        _announce(row)
    return row


# --- reading --------------------------------------------------------------------------------
def active(now=None) -> QuerySet[StandingApproval]:
    now = now or timezone.now()
    return StandingApproval.objects.filter(revoked_at__isnull=True).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )


def listed(principal: Principal, *, everyone: bool = False) -> QuerySet[StandingApproval]:
    user = principal.user
    if user is None:
        return StandingApproval.objects.none()
    rows = active().select_related("user", "granted_by")
    return rows if everyone and user.is_admin else rows.filter(user=user)


def covering(
    *,
    user_id: int | None,
    specialist_id: int | None,
    tool: str,
    operation: str,
    scope: tuple[str, int] | None,
) -> StandingApproval | None:
    """The active standing approval that lets this call pass, if any (unnarrowed, or narrowed
    to exactly the call's object)."""
    if user_id is None:
        return None
    where = Q(scope_kind="")
    if scope is not None:
        where |= Q(scope_kind=scope[0], scope_id=scope[1])
    return (
        active()
        .filter(user_id=user_id, specialist_id=specialist_id, tool=tool, operation=operation)
        .filter(where)
        .first()
    )


def suggested(staged: StagedCall) -> bool:
    """Whether the card suggests a standing approval: this person approved the same agent + tool
    + operation at least three times in the last 14 days, and nothing covers it yet."""
    if staged.reason == StagedCall.Reason.AGENT_CHANGE or staged.user_id is None:
        return False
    alike = StagedCall.objects.filter(
        user_id=staged.user_id,
        specialist_id=staged.specialist_id,
        tool=staged.tool,
        operation=staged.operation,
        status__in=(StagedCall.Status.APPROVED, StagedCall.Status.EXECUTED, StagedCall.Status.FAILED),
        decided_at__gte=timezone.now() - SUGGEST_WINDOW,
    ).exclude(pk=staged.pk)
    if alike.count() < SUGGEST_AFTER:
        return False
    return (
        covering(
            user_id=staged.user_id,
            specialist_id=staged.specialist_id,
            tool=staged.tool,
            operation=staged.operation,
            scope=None,
        )
        is None
    )


def _announce(row: StandingApproval) -> None:
    record_mutation(audience="user", user=row.user, topic="approvals.standing", refresh_topic=TOPIC)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
