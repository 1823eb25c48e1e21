"""Standing approvals: "approve and allow alike in future" creates one (narrowed on request),
three alike approvals within 14 days suggest one, the person or an admin revokes it, and changes
to agents never get one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.approvals import decisions, standing
from apps.approvals.errors import InvalidStandingApproval, StandingApprovalNotFound
from apps.approvals.models import StagedCall, StandingApproval
from apps.core.inputs import build
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Board, Task
from apps.tools import registry
from tests.approvals.decide_helpers import stage

DELETE = "aufgaben_delete_task"


@pytest.fixture
def board(db):
    return Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)


@pytest.fixture
def new_task(as_anna, statuses, board):
    return lambda title="Aufgabe": tasks.create_task(
        as_anna, build(TaskCreate, title=title, board_id=board.pk)
    )


def alike(as_anna, anna, new_task) -> StagedCall:
    return stage(anna, DELETE, {"task_id": new_task().pk})


def test_approve_and_allow_alike_creates_a_standing_approval(anna, as_anna, new_task):
    staged = alike(as_anna, anna, new_task)
    decisions.approve(as_anna, staged.pk, allow_alike=True, days=30)
    row = StandingApproval.objects.get()
    assert (row.user, row.specialist_id, row.tool, row.operation) == (anna, None, DELETE, "delete")
    assert row.scope_kind == "" and row.granted_by == anna and row.revoked_at is None
    assert timedelta(days=29) < row.expires_at - timezone.now() <= timedelta(days=30)
    found = standing.covering(
        user_id=anna.pk, specialist_id=None, tool=DELETE, operation="delete", scope=None
    )
    assert found == row
    # The same again extends the one row instead of adding a twin.
    decisions.approve(as_anna, alike(as_anna, anna, new_task).pk, allow_alike=True)
    assert StandingApproval.objects.count() == 1


def test_the_default_lifetime_is_90_days(anna, as_anna, new_task):
    decisions.approve(as_anna, alike(as_anna, anna, new_task).pk, allow_alike=True)
    left = StandingApproval.objects.get().expires_at - timezone.now()
    assert timedelta(days=89) < left <= timedelta(days=90)


@pytest.mark.skipif(
    getattr(registry.get(DELETE), "scope", None) is None, reason="the tool declares no scope yet"
)
def test_a_standing_approval_narrowed_to_the_calls_board(anna, as_anna, new_task, board):
    decisions.approve(as_anna, alike(as_anna, anna, new_task).pk, allow_alike=True, narrow=True)
    row = StandingApproval.objects.get()
    assert (row.scope_kind, row.scope_id) == ("board", board.pk)
    covers = standing.covering
    assert covers(
        user_id=anna.pk, specialist_id=None, tool=DELETE, operation="delete", scope=("board", board.pk)
    )
    assert not covers(user_id=anna.pk, specialist_id=None, tool=DELETE, operation="delete", scope=None)


def test_changes_to_agents_never_get_one(anna, as_anna, new_task):
    staged = alike(as_anna, anna, new_task)
    StagedCall.objects.filter(pk=staged.pk).update(reason=StagedCall.Reason.AGENT_CHANGE)
    with pytest.raises(InvalidStandingApproval):
        decisions.approve(as_anna, staged.pk, allow_alike=True)
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.PENDING and not StandingApproval.objects.exists()
    assert Task.objects.filter(pk=staged.arguments["task_id"]).exists()
    assert standing.suggested(staged) is False


def test_a_bad_lifetime_is_refused_before_anything_runs(anna, as_anna, new_task):
    staged = alike(as_anna, anna, new_task)
    with pytest.raises(InvalidStandingApproval):
        decisions.approve(as_anna, staged.pk, allow_alike=True, days=1000)
    assert Task.objects.filter(pk=staged.arguments["task_id"]).exists()


def test_three_alike_approvals_in_14_days_suggest_one(anna, as_anna, new_task):
    for _i in range(2):
        decisions.approve(as_anna, alike(as_anna, anna, new_task).pk)
    waiting = alike(as_anna, anna, new_task)
    assert standing.suggested(waiting) is False
    third = alike(as_anna, anna, new_task)
    decisions.approve(as_anna, third.pk)
    assert standing.suggested(waiting) is True
    # Older approvals do not count.
    StagedCall.objects.filter(pk=third.pk).update(decided_at=timezone.now() - timedelta(days=15))
    assert standing.suggested(waiting) is False
    StagedCall.objects.filter(pk=third.pk).update(decided_at=timezone.now())
    # Denials are no approvals; and nothing is suggested once a standing approval covers it.
    decisions.approve(as_anna, waiting.pk, allow_alike=True)
    assert standing.suggested(alike(as_anna, anna, new_task)) is False


def test_the_person_or_an_admin_revokes_it_nobody_else(anna, as_anna, as_ben, as_boss, new_task):
    decisions.approve(as_anna, alike(as_anna, anna, new_task).pk, allow_alike=True)
    row = StandingApproval.objects.get()
    with pytest.raises(StandingApprovalNotFound):
        standing.revoke(as_ben, row.pk)
    standing.revoke(as_anna, row.pk)
    row.refresh_from_db()
    assert row.revoked_by == anna and not standing.listed(as_anna).exists()
    assert (
        standing.covering(user_id=anna.pk, specialist_id=None, tool=DELETE, operation="delete", scope=None)
        is None
    )
    with pytest.raises(StandingApprovalNotFound):
        standing.revoke(as_anna, row.pk)  # revoked once
    decisions.approve(as_anna, alike(as_anna, anna, new_task).pk, allow_alike=True)
    second = StandingApproval.objects.get(revoked_at__isnull=True)
    standing.revoke(as_boss, second.pk)
    second.refresh_from_db()
    assert second.revoked_at is not None


def test_expired_standing_approvals_are_not_listed(anna, as_anna, new_task):
    decisions.approve(as_anna, alike(as_anna, anna, new_task).pk, allow_alike=True)
    StandingApproval.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert not standing.listed(as_anna).exists()
