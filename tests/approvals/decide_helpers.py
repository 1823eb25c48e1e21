"""A run paused on a staged call, built directly (the state the dispatcher's policy step and the
runtime leave behind): the chat's question, the model's tool call, the `approval_required` tool
message, the APPROVAL event and the StagedCall row."""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone

from apps.agent import services as agent
from apps.agent.models import ChatSession, Message, Run, RunEvent
from apps.approvals.models import StagedCall
from apps.tools.dispatcher import args_digest


def waiting_run(user, *, model=None, question: str = "Lösche die Aufgabe") -> Run:
    session = ChatSession.objects.create(user=user, title="Freigabe-Test")
    run = Run.objects.create(
        session=session, user=user, model_config=model, status=Run.Status.WAITING, started_at=timezone.now()
    )
    Message.objects.create(session=session, run=run, role=Message.Role.USER, content=question)
    return run


def stage(
    user,
    tool: str,
    arguments: dict,
    *,
    run: Run | None = None,
    call_id: str = "call_1",
    operation: str = "delete",
    preview: str = "Löscht etwas",
    expires_in: timedelta = timedelta(hours=24),
    reason: str = StagedCall.Reason.DEFAULT,
    add_call_message: bool = True,
) -> StagedCall:
    staged = StagedCall.objects.create(
        tool=tool,
        operation=operation,
        arguments=arguments,
        arguments_digest=args_digest(arguments),
        preview=preview,
        reason=reason,
        user=user,
        run=run,
        call_id=call_id if run else "",
        expires_at=timezone.now() + expires_in,
    )
    if run is not None:
        failure = {
            "ok": False,
            "code": "approval_required",
            "message": "Waiting for a person's approval.",
            "output": {"staged_id": staged.pk, "preview": preview, "operation": operation, "reason": reason},
        }
        if add_call_message:
            agent.add_message(
                run,
                Message.Role.ASSISTANT,
                "",
                tool_calls=[{"id": call_id, "name": tool, "arguments": json.dumps(arguments)}],
            )
        agent.add_message(
            run,
            Message.Role.TOOL,
            json.dumps(failure),
            tool_call_id=call_id,
            metadata={"name": tool, "ok": False, "code": "approval_required"},
        )
        agent.record_event(
            run,
            RunEvent.Kind.APPROVAL,
            {
                "staged_id": staged.pk,
                "preview": preview,
                "tool": tool,
                "operation": operation,
                "reason": reason,
                "call_id": call_id,
            },
        )
    return staged


def tool_message(run: Run, call_id: str = "call_1") -> dict:
    m = Message.objects.get(run=run, role=Message.Role.TOOL, tool_call_id=call_id)
    return json.loads(m.content)
