"""Each aufgaben_* tool: success, bad input (nothing written), permission; constant query counts."""

from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.principal import Principal
from apps.mutations.models import MutationEvent
from apps.tasks.models import Comment, Task
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    # As if a person approved each call (deletes wait for one by default): these tests are about
    # the tools themselves; the approval step is tested in tests/approvals.
    return dispatch(tool_name, args, replace(ctx, approved=True))


def test_create_get_update_move_comment_delete(anna_ctx, shared_board, statuses):
    created = call(
        anna_ctx, "aufgaben_create_task", title="Bescheid prüfen", due_date="2026-12-01", priority="high"
    )
    assert created.ok, created.message
    task = created.output["task"]
    assert task["source_type"] == "agent" and task["erstellt_von"]["name"] == "Anna Berger"
    assert created.mutation_event_id is not None
    live = MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions
    assert any(a.get("announce_key") == "aufgaben.task.created" for a in live)
    assert created.ui_actions == []  # the all-user fan-out delivers them, the result does not repeat them

    got = call(anna_ctx, "aufgaben_get_task", task_id=task["id"])
    assert got.output["task"]["title"] == "Bescheid prüfen" and got.output["comments"] == []

    updated = call(
        anna_ctx,
        "aufgaben_update_task",
        task_id=task["id"],
        description="mit Anlage",
        clear_fields=["due_date"],
    )
    assert updated.ok and updated.output["task"]["due_date"] is None
    assert updated.output["task"]["priority"] == "high"  # untouched

    moved = call(anna_ctx, "aufgaben_move_task", task_id=task["id"], status_key="erledigt")
    assert moved.output["task"]["status"]["is_done"] is True

    comment = call(anna_ctx, "aufgaben_add_comment", task_id=task["id"], body="Geprüft, alles korrekt.")
    again = call(anna_ctx, "aufgaben_add_comment", task_id=task["id"], body="Geprüft, alles korrekt.")
    assert comment.output["created"] is True and again.output["created"] is False
    assert Comment.objects.get().author_type == "agent"

    deleted = call(anna_ctx, "aufgaben_delete_task", task_id=task["id"])
    assert deleted.ok and not Task.objects.exists()
    assert MutationEvent.objects.filter(topic="aufgaben.task.deleted").count() == 1


def test_boards_and_statuses(anna_ctx, shared_board, statuses):
    assert [b["name"] for b in call(anna_ctx, "aufgaben_list_boards").output["boards"]] == ["Steuern"]
    keys = [s["key"] for s in call(anna_ctx, "aufgaben_list_statuses").output["statuses"]]
    assert keys == ["offen", "in_arbeit", "wiedervorlage", "erledigt"]
    board = call(anna_ctx, "aufgaben_create_board", name="Privat", visibility="private")
    assert board.ok and board.output["board"]["visibility"] == "private"


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("aufgaben_create_task", {"title": "x" * 10_000}, "invalid_arguments"),
        ("aufgaben_create_task", {"title": "ok", "due_date": "31.12.2026"}, "invalid_arguments"),
        ("aufgaben_create_task", {"title": "ok", "status_id": 987654}, "status_not_found"),
        ("aufgaben_create_task", {"title": "ok", "board_id": 987654}, "board_not_found"),
        ("aufgaben_create_task", {"title": "ok", "priority": "sofort"}, "invalid_arguments"),
        ("aufgaben_update_task", {"task_id": 987654, "title": "x"}, "task_not_found"),
        ("aufgaben_move_task", {"task_id": 987654, "status_key": "offen"}, "task_not_found"),
        ("aufgaben_get_task", {"task_id": "abc"}, "invalid_arguments"),
        ("aufgaben_add_comment", {"task_id": 1, "body": ""}, "invalid_arguments"),
        ("aufgaben_list_tasks", {"due_from": "gestern"}, "invalid_arguments"),
        ("aufgaben_list_tasks", {"limit": 5000}, "invalid_arguments"),
    ],
)
def test_bad_input_has_a_clear_code_and_writes_nothing(anna_ctx, shared_board, statuses, name, args, code):
    result = dispatch(name, args, anna_ctx)
    assert (result.ok, result.code) == (False, code), result.message
    assert result.message
    assert not Task.objects.exists() and not MutationEvent.objects.exists()


def test_private_tasks_are_invisible_to_other_people_and_to_service_principals(
    anna_ctx, as_ben, as_robot, private_board, statuses
):
    task = call(anna_ctx, "aufgaben_create_task", title="Privat", board_id=private_board.pk).output["task"]
    for principal in (as_ben, as_robot):
        ctx = ToolContext(principal=principal)
        assert call(ctx, "aufgaben_get_task", task_id=task["id"]).code == "task_not_found"
        assert call(ctx, "aufgaben_update_task", task_id=task["id"], title="gehackt").code == "task_not_found"
        assert call(ctx, "aufgaben_delete_task", task_id=task["id"]).code == "task_not_found"
        assert call(ctx, "aufgaben_list_tasks").output["total"] == 0
        assert (
            call(ctx, "aufgaben_create_task", title="x", board_id=private_board.pk).code == "board_not_found"
        )
    assert Task.objects.get().title == "Privat"


def test_service_principal_cannot_own_a_private_board(as_robot):
    result = call(ToolContext(principal=as_robot), "aufgaben_create_board", name="x", visibility="private")
    assert result.code == "forbidden"


def test_list_tasks_filters_and_paginates(anna_ctx, anna, make_task, statuses):
    for i in range(7):
        make_task(f"Mandant Meier {i}", assignee=anna if i % 2 else None)
    make_task("Erledigt", status="erledigt")
    page = call(anna_ctx, "aufgaben_list_tasks", query="meier", limit=3, offset=3).output
    assert page["total"] == 7 and len(page["tasks"]) == 3 and page["has_more"] is True
    assert call(anna_ctx, "aufgaben_list_tasks", unfinished=True).output["total"] == 7
    assert call(anna_ctx, "aufgaben_list_tasks", category="done").output["total"] == 1
    assert call(anna_ctx, "aufgaben_list_tasks", assignee_id=anna.pk).output["total"] == 3


def test_list_tool_query_count_is_constant(anna_ctx, anna, make_task):
    def count_queries():
        with CaptureQueriesContext(connection) as ctx:
            assert dispatch("aufgaben_list_tasks", {"limit": 200}, anna_ctx).ok
        return len(ctx.captured_queries)

    for i in range(3):
        make_task(f"a{i}", assignee=anna)
    few = count_queries()
    for i in range(40):
        make_task(f"b{i}", assignee=anna)
    assert count_queries() == few


def test_tools_work_for_a_team_room_without_private_access(anna, shared_board, private_board, statuses):
    from tests.factories import ServicePrincipalFactory

    ctx = ToolContext(
        principal=Principal.for_service(ServicePrincipalFactory(kind="team_room"), acting_user=anna)
    )
    result = call(ctx, "aufgaben_create_task", title="Aus dem Team")
    assert result.ok and result.output["task"]["source_type"] == "team_chat"
    assert result.output["task"]["erstellt_von"]["email"] == anna.email
