"""A staged call is announced to the person's open pages (the Freigaben page, its badge and the
review queue refetch on the "approvals" topic); a headless record is not (it notifies instead)."""

from __future__ import annotations

import pytest

from apps.accounts.principal import Principal
from apps.approvals.models import StagedCall
from apps.mutations.models import MutationEvent
from apps.tasks.models import Board, Task
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def task(statuses):
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    return Task.objects.create(title="Umsatzsteuer Q3", board=board, status=statuses["offen"])


def _approvals_events(user):
    return MutationEvent.objects.filter(user=user, refresh_topic="approvals")


def test_a_staged_call_refreshes_the_persons_approval_views(user, task, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        result = dispatch("aufgaben_delete_task", {"task_id": task.pk}, ToolContext(Principal.for_user(user)))
    assert result.code == "approval_required"
    assert StagedCall.objects.get().status == StagedCall.Status.PENDING
    assert _approvals_events(user).count() == 1


def test_a_headless_record_is_not_announced_as_waiting(user, task, django_capture_on_commit_callbacks):
    ctx = ToolContext(Principal.for_user(user), headless=True)
    with django_capture_on_commit_callbacks(execute=True):
        result = dispatch("aufgaben_delete_task", {"task_id": task.pk}, ctx)
    assert result.code == "approval_unavailable_headless"
    assert _approvals_events(user).count() == 0
