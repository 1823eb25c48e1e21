"""Deciding on staged calls: approve executes exactly the staged call once and resumes the run,
deny and expiry answer the run with their codes, nobody else decides, changed arguments are
refused, cancelling a waiting run denies its calls."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.agent import services as agent
from apps.agent.models import Run, RunEvent
from apps.approvals import decisions
from apps.approvals.errors import AlreadyDecided, ArgumentsChanged, StagedCallNotFound
from apps.approvals.models import StagedCall
from apps.core.inputs import build
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Task
from apps.tools.models import ToolExecution
from tests.approvals.decide_helpers import stage, tool_message, waiting_run

DELETE = "aufgaben_delete_task"


@pytest.fixture
def enqueued(monkeypatch):
    """The run ids the agent job would be queued for (after commit)."""
    queued: list[int] = []
    monkeypatch.setattr(agent, "_enqueue", queued.append)
    return queued


@pytest.fixture
def task(as_anna, statuses):
    from apps.tasks.models import Board

    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    return tasks.create_task(as_anna, build(TaskCreate, title="Umsatzsteuer Q3", board_id=board.pk))


def test_approve_executes_the_staged_call_and_resumes_the_run(
    anna, as_anna, task, enqueued, django_capture_on_commit_callbacks
):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run)
    with django_capture_on_commit_callbacks(execute=True):
        decided = decisions.approve(as_anna, staged.pk)
    assert decided.status == StagedCall.Status.EXECUTED and decided.decided_by == anna
    assert not Task.objects.filter(pk=task.pk).exists()
    answer = tool_message(run)
    assert answer["ok"] is True and answer["output"] == {"deleted": task.pk}
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and enqueued == [run.pk]
    event = run.events.filter(kind=RunEvent.Kind.APPROVAL).order_by("-seq").first()
    assert event.payload["decision"] == "approved" and event.payload["ok"] is True
    assert event.payload["staged_id"] == staged.pk and event.payload["call_id"] == "call_1"


def test_deny_answers_the_run_with_approval_denied(
    anna, as_anna, task, enqueued, django_capture_on_commit_callbacks
):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run)
    with django_capture_on_commit_callbacks(execute=True):
        decisions.deny(as_anna, staged.pk)
    assert Task.objects.filter(pk=task.pk).exists()
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.DENIED
    answer = tool_message(run)
    assert answer["ok"] is False and answer["code"] == "approval_denied"
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and enqueued == [run.pk]


def test_a_decided_call_is_not_decided_again(anna, as_anna, task, enqueued):
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna))
    decisions.deny(as_anna, staged.pk)
    with pytest.raises(AlreadyDecided):
        decisions.approve(as_anna, staged.pk)
    assert Task.objects.filter(pk=task.pk).exists()


def test_another_persons_call_is_not_found_an_admin_decides_it(anna, as_ben, as_boss, task, enqueued):
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna))
    with pytest.raises(StagedCallNotFound):
        decisions.approve(as_ben, staged.pk)
    with pytest.raises(StagedCallNotFound):
        decisions.deny(as_ben, staged.pk)
    assert not decisions.pending(as_ben).exists() and decisions.pending_count(as_ben.user) == 0
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.PENDING and Task.objects.filter(pk=task.pk).exists()
    decisions.approve(as_boss, staged.pk)
    staged.refresh_from_db()
    # The call ran as Anna (the staged principal), not as the admin who approved it.
    assert staged.status == StagedCall.Status.EXECUTED and staged.decided_by == as_boss.user
    assert ToolExecution.objects.get(tool=DELETE, ok=True).user_id == anna.pk


def test_changed_arguments_are_refused(anna, as_anna, task, enqueued):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run)
    other = tasks.create_task(as_anna, build(TaskCreate, title="Andere", board_id=task.board_id))
    StagedCall.objects.filter(pk=staged.pk).update(arguments={"task_id": other.pk})
    with pytest.raises(ArgumentsChanged):
        decisions.approve(as_anna, staged.pk)
    assert Task.objects.filter(pk__in=[task.pk, other.pk]).count() == 2
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.FAILED
    assert tool_message(run)["code"] == "approval_arguments_changed"


def test_a_failing_approved_call_answers_with_the_tools_own_code(anna, as_anna, task, enqueued):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run)
    Task.objects.filter(pk=task.pk).delete()
    decisions.approve(as_anna, staged.pk)
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.FAILED and staged.result["code"] == "task_not_found"
    assert tool_message(run)["code"] == "task_not_found"


def test_expired_calls_answer_approval_expired(
    anna, as_anna, task, enqueued, django_capture_on_commit_callbacks
):
    run = waiting_run(anna)
    old = stage(anna, DELETE, {"task_id": task.pk}, run=run, expires_in=timedelta(seconds=-1))
    fresh = stage(anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna))
    with django_capture_on_commit_callbacks(execute=True):
        assert decisions.expire_due() == 1
    old.refresh_from_db(), fresh.refresh_from_db()
    assert old.status == StagedCall.Status.EXPIRED and fresh.status == StagedCall.Status.PENDING
    assert tool_message(run)["code"] == "approval_expired"
    assert enqueued == [run.pk] and Task.objects.filter(pk=task.pk).exists()
    with pytest.raises(AlreadyDecided):
        decisions.approve(as_anna, old.pk)


def test_approving_after_the_expiry_expires_instead(anna, as_anna, task, enqueued):
    staged = stage(
        anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna), expires_in=timedelta(seconds=-1)
    )
    with pytest.raises(AlreadyDecided):
        decisions.approve(as_anna, staged.pk)
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXPIRED and Task.objects.filter(pk=task.pk).exists()


def test_the_run_resumes_once_its_last_pending_call_is_decided(anna, as_anna, task, enqueued):
    run = waiting_run(anna)
    first = stage(anna, DELETE, {"task_id": task.pk}, run=run, call_id="call_1")
    second = stage(anna, DELETE, {"task_id": task.pk}, run=run, call_id="call_2", add_call_message=False)
    decisions.deny(as_anna, first.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.WAITING
    decisions.approve(as_anna, second.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED
    assert tool_message(run, "call_1")["code"] == "approval_denied"
    assert tool_message(run, "call_2")["ok"] is True


def test_cancelling_a_waiting_run_finishes_it_and_denies_its_calls(
    anna, as_anna, task, enqueued, django_capture_on_commit_callbacks
):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run)
    with django_capture_on_commit_callbacks(execute=True):
        cancelled = agent.cancel_and_wait(as_anna, run.pk, timeout=0)
    assert cancelled.status == Run.Status.CANCELLED
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.DENIED
    assert tool_message(run)["code"] == "approval_denied"
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and enqueued == []
    assert Task.objects.filter(pk=task.pk).exists()


def test_a_call_without_a_run_is_decided_alone(anna, as_anna, task, enqueued):
    """The REST/MCP surface: no run to resume; the result stays on the staged call."""
    staged = stage(anna, DELETE, {"task_id": task.pk})
    staged.surface = "api"
    staged.save()
    decisions.approve(as_anna, staged.pk)
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXECUTED and staged.result["ok"] is True
    assert enqueued == [] and not Task.objects.filter(pk=task.pk).exists()


def test_a_staged_call_is_announced_to_its_person(anna, task, django_capture_on_commit_callbacks):
    from apps.mutations.models import MutationEvent

    staged = stage(anna, DELETE, {"task_id": task.pk})
    before = MutationEvent.objects.count()
    decisions.announce_staged(staged)
    event = MutationEvent.objects.order_by("-id").first()
    assert MutationEvent.objects.count() == before + 1
    assert (event.user, event.topic, event.refresh_topic) == (anna, "approvals.staged", "approvals")
