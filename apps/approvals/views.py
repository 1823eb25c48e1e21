"""The Freigaben page (pending calls, recent decisions, standing approvals) and the small JSON
endpoints the chat's approval card uses. Every decision goes through `apps.approvals.decisions`."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from apps.approvals import decisions, standing
from apps.approvals.errors import InvalidStandingApproval
from apps.approvals.models import StagedCall
from apps.core import web
from apps.core.errors import DomainError, InvalidInput
from apps.core.records import iso
from apps.core.web import domain_errors, wants_json

PAGE_SIZE = 20
DECISIONS = {"approve", "deny", "approve_alike"}


def record(staged: StagedCall) -> dict:
    """What the chat's card shows of a staged call."""
    result = staged.result or {}
    pending = staged.status == StagedCall.Status.PENDING
    return {
        "id": staged.pk,
        "status": staged.status,
        "status_label": staged.get_status_display(),
        "preview": staged.preview,
        "tool": staged.tool,
        "operation": staged.operation,
        "reason": staged.reason,
        "reason_label": staged.get_reason_display(),
        "call_id": staged.call_id,
        "expires_at": iso(staged.expires_at),
        "decided_at": iso(staged.decided_at),
        "ok": result.get("ok"),
        "code": result.get("code") or "",
        "message": result.get("message") or "",
        "suggest": pending and standing.suggested(staged),
        "alike_allowed": staged.reason != StagedCall.Reason.AGENT_CHANGE,
        "decide_url": reverse("approvals:decide", args=[staged.pk]),
    }


@login_required
def index(request):
    principal = request.principal
    everyone = request.GET.get("alle") == "1" and request.user.is_admin
    pending = decisions.pending(principal, everyone=everyone).order_by("expires_at", "id")
    page = Paginator(pending, PAGE_SIZE).get_page(web.page_number(request))
    decided = Paginator(decisions.decided(principal, everyone=everyone), PAGE_SIZE).get_page(
        web.page_number(request, "entschieden")
    )
    context = {
        "page": page,
        "cards": [{"s": s, "suggest": standing.suggested(s)} for s in page.object_list],
        "decided": decided,
        "standing": standing.listed(principal, everyone=everyone),
        "everyone": everyone,
        "next": request.get_full_path(),
        "default_days": standing.default_days(),
    }
    template = "approvals/_lists.html" if getattr(request, "htmx", False) else "approvals/index.html"
    return render(request, template, context)


@require_GET
@login_required
@domain_errors(json=True)
def card(request, staged_id: int):
    return JsonResponse({"staged": record(decisions.get_staged(request.principal, staged_id))})


@require_GET
@login_required
def chat_pending(request, session_id: int):
    """The person's own pending calls of one chat (the chat page draws their cards on load)."""
    rows = decisions.pending(request.principal).filter(
        run__session_id=session_id, run__session__user=request.user
    )
    return JsonResponse({"staged": [record(s) for s in rows.order_by("id")[:50]]})


@require_POST
@login_required
def decide(request, staged_id: int):
    decision = request.POST.get("decision", "")
    try:
        if decision not in DECISIONS:
            raise InvalidInput(_("Unknown decision."))
        if decision == "deny":
            staged = decisions.deny(request.principal, staged_id)
        else:
            staged = decisions.approve(
                request.principal,
                staged_id,
                allow_alike=decision == "approve_alike",
                narrow=request.POST.get("narrow") == "1",
                days=_days(request.POST.get("days")),
            )
    except DomainError as exc:
        if wants_json(request):
            body = {"code": exc.code, "message": exc.message}
            if isinstance(exc.details, dict) and exc.details.get("staged_id"):
                body["staged"] = record(decisions.get_staged(request.principal, staged_id))
            return JsonResponse(body, status=exc.http_status)
        return web.error_response(request, exc)
    if wants_json(request):
        return JsonResponse({"staged": record(staged)})
    if staged.status == StagedCall.Status.DENIED:
        messages.success(request, _("Denied."))
    elif staged.status == StagedCall.Status.EXECUTED:
        messages.success(request, _("Approved and executed."))
    else:
        messages.warning(
            request,
            _("Approved, but the call failed: %(message)s") % {"message": staged.result.get("message", "")},
        )
    return redirect(_next(request))


@require_POST
@login_required
@domain_errors
def revoke(request, standing_id: int):
    standing.revoke(request.principal, standing_id)
    messages.success(request, _("The standing approval was revoked."))
    return redirect(_next(request))


def _days(raw: str | None) -> int | None:
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 4:
        raise InvalidStandingApproval.field(
            "days", _("Between 1 and %(max)s days.") % {"max": standing.MAX_DAYS}
        )
    return int(raw)


def _next(request) -> str:
    target = request.POST.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return reverse("approvals:index")
