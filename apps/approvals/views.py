"""The Freigaben page (pending calls, recent decisions, standing approvals) and the small JSON
endpoints the chat's approval card uses. Every decision goes through `apps.approvals.decisions`."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_GET, require_POST

from apps.agent import services as chats
from apps.agent.labels import tool_label
from apps.approvals import decisions, policy, standing
from apps.approvals.contracts import ApprovalsPage, DecisionIn
from apps.approvals.models import Policy, StagedCall
from apps.core.errors import DomainError
from apps.core.records import iso
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, wants_json
from apps.tools import registry

PAGE_SIZE = 20
# What the rules page calls the operations tools declare (the keys stay the contract).
OPERATION_LABELS = {
    "read": pgettext_lazy("approval operation", "read"),
    "create": pgettext_lazy("approval operation", "create"),
    "update": pgettext_lazy("approval operation", "update"),
    "delete": pgettext_lazy("approval operation", "delete"),
    "mass_delete": pgettext_lazy("approval operation", "delete with contents"),
    "cancel": pgettext_lazy("approval operation", "cancel a Frist"),
    "share": pgettext_lazy("approval operation", "share publicly"),
    "execute": pgettext_lazy("approval operation", "execute"),
    "write": pgettext_lazy("approval operation", "write"),
    "select": pgettext_lazy("approval operation", "read (SELECT)"),
    "insert": pgettext_lazy("approval operation", "insert (INSERT)"),
    "upsert": pgettext_lazy("approval operation", "insert or update (UPSERT)"),
}


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


def index(request):
    principal = request.principal
    everyone = web.query(request, ApprovalsPage).alle and request.user.is_admin
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
@domain_errors(json=True)
def card(request, staged_id: int):
    return JsonResponse({"staged": record(decisions.get_staged(request.principal, staged_id))})


@require_GET
@domain_errors(json=True)
def chat_pending(request, session_id: int):
    """The person's own pending calls of one chat (the chat page draws their cards on load); a
    chat that is not theirs (or does not exist) is not found."""
    session = chats.get_session(request.principal, session_id)
    rows = decisions.pending(request.principal).filter(run__session=session, run__session__user=request.user)
    return JsonResponse({"staged": [record(s) for s in rows.order_by("id")[:50]]})


@require_POST
def decide(request, staged_id: int):
    try:
        chosen = web.posted(request, DecisionIn)
        if chosen.decision == "deny":
            staged = decisions.deny(request.principal, staged_id)
        else:
            staged = decisions.approve(
                request.principal,
                staged_id,
                allow_alike=chosen.decision == "approve_alike",
                narrow=chosen.narrow,
                days=chosen.days,
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
@domain_errors
def revoke(request, standing_id: int):
    standing.revoke(request.principal, standing_id)
    messages.success(request, _("The standing approval was revoked."))
    return redirect(_next(request))


def _next(request) -> str:
    return web.back_target(request, reverse("approvals:index"))


# --- the rights table (admins) --------------------------------------------------------------
CHOICES = ("allowed", "ask", "forbidden")


def _policy_rows(group_id: int | None) -> list[dict]:
    """Every writing tool's operations with the main copilot's (or a group's) current setting."""
    current = {p.tool: p for p in Policy.objects.filter(specialist_id=None, group_id=group_id)}
    rows = []
    for t in registry.all_tools():
        if t.read_only:
            continue
        p = current.get(t.name)
        allowed, forbidden = set(p.allowed if p else ()), set(p.forbidden if p else ())
        for op in t.operations:
            if op in forbidden or "*" in forbidden:
                value = "forbidden"
            elif op in allowed or "*" in allowed:
                value = "allowed"
            else:
                value = "ask"
            rows.append(
                {
                    "tool": t.name,
                    "family": t.family,
                    "tool_label": tool_label(t.name),
                    "operation": op,
                    "operation_label": OPERATION_LABELS.get(op, op),
                    "value": value,
                    "default": t.default_for(op),
                    "always_ask": t.always_ask,
                    "field": f"{t.name}:{op}",
                }
            )
    return rows


def policies(request):
    """The rights table: per writing tool and operation erlaubt / fragen / verboten, for the main
    copilot or (forbidding only) one group's members. Saved through `policy.save_policy`."""
    if not request.user.is_admin:
        raise PermissionDenied
    group_id = web.id_param(request, "gruppe")
    group = Group.objects.filter(pk=group_id).first() if group_id else None
    group_id = group.pk if group else None
    rows = _policy_rows(group_id)
    if request.method == "POST":
        _save_policies(request, rows, group_id)
        target = reverse("approvals:policies") + (f"?gruppe={group_id}" if group_id else "")
        return redirect(target)
    context = {"rows": rows, "groups": Group.objects.order_by("name"), "group": group}
    return render(request, "approvals/policies.html", context)


def _save_policies(request, rows: list[dict], group_id: int | None) -> None:
    by_tool: dict[str, tuple[list[str], list[str]]] = {}
    for row in rows:
        value = request.POST.get(row["field"], row["value"])
        if value not in CHOICES or (group_id and value == "allowed"):
            value = "ask"
        allowed, forbidden = by_tool.setdefault(row["tool"], ([], []))
        if value == "allowed":
            allowed.append(row["operation"])
        elif value == "forbidden":
            forbidden.append(row["operation"])
    current = {p.tool: p for p in Policy.objects.filter(specialist_id=None, group_id=group_id)}
    changed, refused = 0, []
    for tool, (allowed, forbidden) in by_tool.items():
        existing = current.get(tool)
        if existing is not None and (sorted(existing.allowed), sorted(existing.forbidden)) == (
            sorted(allowed),
            sorted(forbidden),
        ):
            continue
        try:
            if not allowed and not forbidden:
                if existing is not None:
                    policy.delete_policy(request.principal, existing.pk)
                    changed += 1
                continue
            policy.save_policy(
                request.principal, tool=tool, allowed=allowed, forbidden=forbidden, group_id=group_id
            )
            changed += 1
        except DomainError as exc:
            refused.append(f"{tool}: {exc.message}")
    for line in refused:
        messages.error(request, line)
    if changed:
        messages.success(request, _("%(count)s tool rules saved.") % {"count": changed})
