"""A paused run resumes through a real Celery worker once its staged call is decided: the worker
continues the loop from the transcript, the scripted model sees the call's result and answers."""

from __future__ import annotations

import json

import pytest

from apps.accounts.principal import Principal
from apps.agent.models import Message, Run
from apps.approvals import decisions
from apps.core.inputs import build
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Board, Task
from tests.agent.conftest import model, provider  # noqa: F401 (fixtures)
from tests.approvals.decide_helpers import stage, waiting_run
from tests.waiting import wait_for
from tests.workers import in_process_worker

DELETE = "aufgaben_delete_task"


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m.get("role") == "tool"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("decision", ["approve", "deny"])
def test_the_decision_resumes_the_run_in_the_worker(anna, statuses, model, fake_openai, decision):  # noqa: F811
    principal = Principal.for_user(anna)
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    task = tasks.create_task(principal, build(TaskCreate, title="Umsatzsteuer Q3", board_id=board.pk))
    run = waiting_run(anna, model=model)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run, call_id="call_del")
    fake_openai.reply(
        "Erledigt: die Aufgabe ist gelöscht." if decision == "approve" else "Sie wurde nicht gelöscht."
    )
    with in_process_worker():
        getattr(decisions, decision)(principal, staged.pk)
        finished = wait_for(lambda: Run.objects.filter(pk=run.pk, status__in=Run.FINAL).first(), timeout=60)
    assert finished.status == Run.Status.COMPLETED, (finished.error_code, finished.diagnostics)
    assert len(fake_openai.chat_requests) == 1
    seen = tool_messages(fake_openai.chat_requests[0])
    assert len(seen) == 1 and seen[0]["tool_call_id"] == "call_del"
    result = json.loads(seen[0]["content"])
    if decision == "approve":
        assert result["ok"] is True and result["output"] == {"deleted": task.pk}
        assert not Task.objects.filter(pk=task.pk).exists()
    else:
        assert result["ok"] is False and result["code"] == "approval_denied"
        assert Task.objects.filter(pk=task.pk).exists()
    answer = Message.objects.filter(run=run, role=Message.Role.ASSISTANT).order_by("-id").first()
    assert answer.content.startswith("Erledigt" if decision == "approve" else "Sie wurde")


@pytest.mark.django_db(transaction=True)
def test_the_expiry_job_runs_in_the_worker_and_resumes_the_run(anna, statuses, model, fake_openai):  # noqa: F811
    from datetime import timedelta

    from apps.approvals.jobs import expire_staged_calls
    from apps.approvals.models import StagedCall

    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    task = tasks.create_task(
        Principal.for_user(anna), build(TaskCreate, title="Umsatzsteuer Q3", board_id=board.pk)
    )
    run = waiting_run(anna, model=model)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run, expires_in=timedelta(seconds=-1))
    fake_openai.reply("Niemand hat rechtzeitig zugestimmt.")
    with in_process_worker():
        expire_staged_calls.delay()
        finished = wait_for(lambda: Run.objects.filter(pk=run.pk, status__in=Run.FINAL).first(), timeout=60)
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXPIRED and Task.objects.filter(pk=task.pk).exists()
    assert finished.status == Run.Status.COMPLETED
    seen = json.loads(tool_messages(fake_openai.chat_requests[0])[0]["content"])
    assert seen["code"] == "approval_expired"
