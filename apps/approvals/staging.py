"""Staging: a call the approval step holds back is stored with its exact validated arguments,
who it acts as, where it came from and a preview in words, and waits for a person (or, when
nobody is present, is recorded under the instance's headless rule and its owner told).

The decision on a staged call (approve, deny, expire) and the resumption of its run belong to
`apps.approvals.services`; this module only writes the waiting row.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel

from apps.approvals.models import StagedCall
from apps.core.errors import DomainError, InvalidInput
from apps.tools.approval import Decision, Staged
from apps.tools.context import ToolContext
from apps.tools.dispatcher import args_digest
from apps.tools.registry import Tool

# Instance setting: what happens to a call that would wait for a person when nobody is present.
HEADLESS_SETTING = "approvals.headless"
RECORD, DENY = "record", "deny"
HEADLESS_RULES = (RECORD, DENY)
PREVIEW_ARGS_CHARS = 300


def ttl() -> dt.timedelta:
    """How long a staged call waits for a decision (CLAPILOT_APPROVAL_TTL seconds, default 24 h)."""
    return dt.timedelta(seconds=int(getattr(settings, "CLAPILOT_APPROVAL_TTL", 24 * 3600)))


def headless_rule() -> str:
    from apps.core.services import get_setting

    value = get_setting(HEADLESS_SETTING, RECORD)
    return value if value in HEADLESS_RULES else RECORD


def check_headless_setting(value: Any) -> str:
    """The admin's value for the instance setting, checked (`core.instance_settings`)."""
    if value not in HEADLESS_RULES:
        raise InvalidInput.field(
            "value",
            _("must be one of: %(choices)s") % {"choices": ", ".join(f'"{r}"' for r in HEADLESS_RULES)},
        )
    return value


INSTANCE_SETTINGS = {HEADLESS_SETTING: check_headless_setting}


def preview_of(tool: Tool, args: BaseModel, ctx: ToolContext) -> str:
    """The tool's own sentence (it may look the object up, read-only, and raise its not-found
    error), else a generic one naming the tool and its arguments."""
    if tool.preview is not None:
        return str(tool.preview(args, ctx))
    shown = json.dumps(args.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
    if len(shown) > PREVIEW_ARGS_CHARS:
        shown = shown[: PREVIEW_ARGS_CHARS - 1] + "…"
    return _("Runs “%(tool)s” with %(arguments)s") % {"tool": tool.name, "arguments": shown}


def _run_id(ctx: ToolContext) -> int | None:
    value = ctx.run_id or ""
    return int(value) if value.isdigit() else None


def stage(tool: Tool, args: BaseModel, decision: Decision, ctx: ToolContext) -> Staged:
    """Store the call that waits (or, headless, is recorded); the preview first, so a call on an
    object the caller cannot see answers the domain's not-found error and stores nothing."""
    preview = preview_of(tool, args, ctx)
    rule = headless_rule() if ctx.headless else ""
    if rule == DENY:
        return Staged(None, preview, decision.operation, decision.reason, headless_rule=rule)
    arguments = args.model_dump(mode="json")
    p = ctx.principal
    person = p.user or p.acting_user
    with transaction.atomic():
        staged = StagedCall.objects.create(
            tool=tool.name,
            operation=decision.operation,
            arguments=arguments,
            arguments_digest=args_digest(arguments),  # what a decision checks before executing
            preview=preview,
            reason=decision.reason or StagedCall.Reason.DEFAULT,
            status=StagedCall.Status.RECORDED if rule else StagedCall.Status.PENDING,
            user=person,
            service_principal=p.service,
            specialist_id=ctx.agent_pk,
            surface=ctx.surface[:10],
            api_key=(ctx.api_key or "")[:40],
            run_id=_run_id(ctx),
            call_id=(ctx.call_id or "")[:100],
            expires_at=timezone.now() + ttl(),
        )
        if rule:
            _notify_owner(staged, person)
        else:  # the person's other tabs (Freigaben page, badge, review queue) learn of it live
            announce_staged(staged)
    return Staged(staged.pk, preview, decision.operation, staged.reason, headless_rule=rule)


def announce_staged(staged: StagedCall) -> None:
    from apps.approvals.decisions import announce_staged as announce  # decisions reads staged rows

    announce(staged)


def _notify_owner(staged: StagedCall, person) -> None:
    """Tell the person behind the run (else the administrators) once per recorded call."""
    from apps.notifications.services import notify

    owners = (
        [person]
        if person is not None
        else list(get_user_model().objects.filter(is_superuser=True, is_active=True))
    )
    for owner in owners:
        try:
            notify(
                owner,
                kind="approvals.recorded",
                title=_("Not executed: nobody was present to approve it"),
                body=staged.preview,
                url=reverse("approvals:index"),
                data={"staged_id": staged.pk, "tool": staged.tool, "operation": staged.operation},
                key=f"approvals.recorded:{staged.pk}",
            )
        except DomainError:  # a notification must never undo the record
            continue
