"""Ten approvals of one staged call at the same moment (a double click, two tabs, two admins) in
ten threads with their own database connections: the call executes once, the run resumes once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from apps.accounts.principal import Principal
from apps.agent import services as agent
from apps.agent.models import Run, RunEvent
from apps.approvals import decisions
from apps.approvals.errors import AlreadyDecided
from apps.approvals.models import StagedCall
from apps.core.inputs import build
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Board, Task
from apps.tools.models import ToolExecution
from tests.approvals.decide_helpers import stage, waiting_run
from tests.factories import UserFactory

DELETE = "aufgaben_delete_task"


@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_approvals_execute_the_call_once(anna, statuses, monkeypatch):
    queued: list[int] = []
    monkeypatch.setattr(agent, "_enqueue", queued.append)
    admins = [UserFactory(role="admin", is_superuser=True) for _i in range(2)]
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    task = tasks.create_task(
        Principal.for_user(anna), build(TaskCreate, title="Umsatzsteuer Q3", board_id=board.pk)
    )
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run)
    deciders = [anna] * 8 + admins
    barrier = threading.Barrier(len(deciders))
    outcomes: list[str] = []
    lock = threading.Lock()

    def click(user):
        try:
            barrier.wait(10)
            decisions.approve(Principal.for_user(user), staged.pk)
            outcome = "executed"
        except AlreadyDecided:
            outcome = "already"
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            outcome = repr(exc)
        finally:
            connection.close()
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=click, args=(user,)) for user in deciders]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["already"] * 9 + ["executed"]
    assert ToolExecution.objects.filter(tool=DELETE, ok=True).count() == 1
    assert not ToolExecution.objects.filter(tool=DELETE, ok=False).exists()
    assert not Task.objects.filter(pk=task.pk).exists()
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXECUTED
    decided = [e for e in run.events.filter(kind=RunEvent.Kind.APPROVAL) if e.payload.get("decision")]
    assert len(decided) == 1
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and queued == [run.pk]
