"""The Freigaben in the admin: staged calls read-only with approve / deny actions through the
decision services, standing approvals revoked, policies saved through the policy service."""

from __future__ import annotations

import pytest

from apps.approvals.models import Policy, StagedCall, StandingApproval
from apps.core.inputs import build
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Board, Task
from tests.approvals.decide_helpers import stage, waiting_run

DELETE = "aufgaben_delete_task"


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    from apps.agent import services as agent

    monkeypatch.setattr(agent, "_enqueue", lambda run_id: None)


@pytest.fixture
def admin_web(client, boss):
    client.force_login(boss)
    return client


@pytest.fixture
def task(as_anna, statuses):
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    return tasks.create_task(as_anna, build(TaskCreate, title="Umsatzsteuer Q3", board_id=board.pk))


def test_staged_calls_are_listed_read_only(admin_web, anna, task):
    staged = stage(anna, DELETE, {"task_id": task.pk}, preview="Löscht die Aufgabe")
    listing = admin_web.get("/admin/approvals/stagedcall/")
    assert listing.status_code == 200 and "aufgaben_delete_task" in listing.content.decode()
    assert admin_web.get(f"/admin/approvals/stagedcall/{staged.pk}/change/").status_code == 200
    assert admin_web.get("/admin/approvals/stagedcall/add/").status_code == 403


def test_the_approve_action_executes_through_the_service(admin_web, anna, task):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run)
    done = stage(anna, DELETE, {"task_id": task.pk})
    StagedCall.objects.filter(pk=done.pk).update(status=StagedCall.Status.DENIED)
    response = admin_web.post(
        "/admin/approvals/stagedcall/",
        {"action": "approve", "_selected_action": [staged.pk, done.pk]},
        follow=True,
    )
    assert response.status_code == 200
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXECUTED and not Task.objects.filter(pk=task.pk).exists()
    page = response.content.decode()
    assert f"#{done.pk}" in page  # the decided one is reported, not executed again


def test_the_deny_action(admin_web, anna, task):
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna))
    admin_web.post("/admin/approvals/stagedcall/", {"action": "deny", "_selected_action": [staged.pk]})
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.DENIED and Task.objects.filter(pk=task.pk).exists()


def test_standing_approvals_are_revoked_in_the_admin(admin_web, anna, boss):
    row = StandingApproval.objects.create(user=anna, tool=DELETE, operation="delete")
    assert admin_web.get("/admin/approvals/standingapproval/").status_code == 200
    admin_web.post("/admin/approvals/standingapproval/", {"action": "revoke", "_selected_action": [row.pk]})
    row.refresh_from_db()
    assert row.revoked_at is not None and row.revoked_by == boss


def test_a_policy_is_saved_through_the_policy_service(admin_web):
    response = admin_web.post(
        "/admin/approvals/policy/add/",
        {"tool": DELETE, "specialist_id": "", "group": "", "allowed": '["delete"]', "forbidden": "[]"},
    )
    assert response.status_code == 302
    policy = Policy.objects.get()
    assert (policy.tool, policy.allowed, policy.forbidden) == (DELETE, ["delete"], [])


@pytest.mark.parametrize(
    "tool, allowed",
    [("gibt_es_nicht", '["delete"]'), (DELETE, '["sprengen"]')],
)
def test_an_unknown_tool_or_operation_is_a_field_error(admin_web, tool, allowed):
    response = admin_web.post(
        "/admin/approvals/policy/add/",
        {"tool": tool, "specialist_id": "", "group": "", "allowed": allowed, "forbidden": "[]"},
    )
    assert response.status_code == 200 and "errorlist" in response.content.decode()
    assert not Policy.objects.exists()
