"""Runs paused on a staged tool call (status `waiting_approval`): the agent side of a decision.

The approvals app decides; these functions write what a decision means for the run: the call's
final result replaces the `approval_required` answer in the transcript, the decision is an
APPROVAL event on the chat's stream, and once nothing else waits the run is queued again, so a
worker continues the loop from the transcript. A waiting run holds no worker, so cancelling it
finishes it at once; the apps that stage calls are told through `agent.run_cancelled`.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.agent import outcomes, services
from apps.agent.models import Message, Run, RunEvent
from apps.core import plugins

logger = logging.getLogger(__name__)

# Callables taking the run that was cancelled while it waited (approvals: deny its staged calls).
RUN_CANCELLED = "agent.run_cancelled"


def settle_call(run: Run, call_id: str, tool: str, result: dict[str, Any], event: dict[str, Any]) -> None:
    """The decided call's final result, as the model will read it: its tool message is rewritten
    (written when there is none), and `event` (staged id, decision, ok, code) is recorded as the
    run's APPROVAL event. Call inside the deciding transaction."""
    content = json.dumps(result, ensure_ascii=False, default=str)
    meta = {"name": tool, "ok": bool(result.get("ok")), "code": result.get("code") or ""}
    message = (
        Message.objects.select_for_update()
        .filter(run=run, role=Message.Role.TOOL, tool_call_id=call_id)
        .order_by("id")
        .first()
    )
    if message is None:
        services.add_message(run, Message.Role.TOOL, content, tool_call_id=call_id, metadata=meta)
    else:
        message.content = content
        message.metadata = {**(message.metadata or {}), **meta}
        message.save(update_fields=["content", "metadata"])
    services.record_event(run, RunEvent.Kind.APPROVAL, {**event, "call_id": call_id, "tool": tool})


def resume(run: Run) -> bool:
    """waiting → queued, and the agent job enqueued once committed. False when the run is not
    waiting (cancelled meanwhile, or resumed by a decision that came first)."""
    if not Run.objects.filter(pk=run.pk, status=Run.Status.WAITING).update(status=Run.Status.QUEUED):
        return False
    run.status = Run.Status.QUEUED
    services.record_event(run, RunEvent.Kind.STATUS, {"status": Run.Status.QUEUED, "error_code": ""})
    run_id = run.pk
    transaction.on_commit(lambda: services._enqueue(run_id))
    return True


def cancel_waiting(run: Run) -> bool:
    """Finish a waiting run as cancelled at once (no worker holds it) and, once committed, tell
    the apps that staged its calls. False when it was not waiting."""
    with transaction.atomic():
        done = Run.objects.filter(pk=run.pk, status=Run.Status.WAITING).update(
            status=Run.Status.CANCELLED, finished_at=timezone.now()
        )
        if not done:
            return False
        run.refresh_from_db()
        services.record_event(run, RunEvent.Kind.STATUS, outcomes.status_payload(run))
        run_id = run.pk
        # After the commit: a decision in flight locks the staged call first and the run second;
        # holding the run's row while waiting for a staged call's lock could deadlock with it.
        transaction.on_commit(lambda: _cancelled(run_id))
    return True


def _cancelled(run_id: int) -> None:
    run = Run.objects.get(pk=run_id)
    for hook in plugins.contributions(RUN_CANCELLED):
        try:
            hook(run)
        except Exception:
            logger.exception("run-cancelled hook %r failed for run %s", hook, run_id)
