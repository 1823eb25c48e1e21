"""The approval step in the dispatcher: the policy table (erlaubt / verboten / * / default /
standing / agent changes / foreign content / group rows / headless), what the catalog offers, and
editing policies."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

import tests.approvals.policy_tools as policy_tools
from apps.accounts.principal import Principal
from apps.agent.toolbox import Toolbox
from apps.approvals import policy
from apps.approvals.errors import PolicyAgentChange, PolicyInvalid
from apps.approvals.models import Policy, StagedCall, StandingApproval
from apps.core.errors import Forbidden, InvalidInput
from apps.core.services import set_setting
from apps.notifications.models import Notification
from apps.tasks.models import Board, Task
from apps.tools import catalog, registry
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.registry import STAGE, RegistryError, tool

pytestmark = pytest.mark.django_db

DELETE = "aufgaben_delete_task"


@pytest.fixture(autouse=True)
def _seen():
    policy_tools.SEEN.clear()
    yield
    policy_tools.SEEN.clear()


@pytest.fixture
def board(db):
    return Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)


@pytest.fixture
def task(board, statuses, anna):
    return Task.objects.create(title="Umsatzsteuer Q3", board=board, status=statuses["offen"])


def allow(tool_name: str, allowed=(), forbidden=(), **fields) -> Policy:
    return Policy.objects.create(tool=tool_name, allowed=list(allowed), forbidden=list(forbidden), **fields)


def delete(ctx: ToolContext, task: Task):
    return dispatch(DELETE, {"task_id": task.pk}, ctx)


# --- defaults -------------------------------------------------------------------------------
def test_without_a_policy_reads_and_creates_run_and_a_delete_is_staged_not_refused(anna_ctx, task):
    assert dispatch("aufgaben_list_tasks", {}, anna_ctx).ok
    assert dispatch("approvals_test_rows", {"mode": "add"}, anna_ctx).ok

    result = delete(anna_ctx, task)

    assert (result.ok, result.code) == (False, "approval_required")
    assert result.message
    staged = StagedCall.objects.get()
    assert result.output == {
        "tool": DELETE,
        "staged_id": staged.pk,
        "preview": staged.preview,
        "operation": "delete",
        "reason": "default",
    }
    assert Task.objects.filter(pk=task.pk).exists()  # nothing deleted
    assert (staged.tool, staged.operation, staged.status) == (DELETE, "delete", StagedCall.Status.PENDING)
    assert staged.arguments == {"task_id": task.pk}
    assert staged.user == anna_ctx.principal.user and staged.specialist_id is None
    assert staged.surface == "native" and staged.arguments_digest
    assert timedelta(hours=23) < staged.expires_at - timezone.now() <= timedelta(hours=24)
    # The preview names the task and its board in the person's language.
    assert "Umsatzsteuer Q3" in staged.preview and "Kanzlei" in staged.preview


def test_the_preview_is_german_for_a_german_user(anna, task):
    anna.language = "de"
    anna.save(update_fields=["language"])
    result = delete(ToolContext(principal=Principal.for_user(anna)), task)
    assert result.output["preview"] == "Löscht die Aufgabe »Umsatzsteuer Q3« auf dem Board »Kanzlei«."


def test_a_staged_call_on_an_object_the_caller_cannot_see_answers_not_found_and_stages_nothing(
    as_robot, anna, board, statuses
):
    private = Board.objects.create(name="Privat", visibility=Board.Visibility.PRIVATE, owner=anna)
    hidden = Task.objects.create(title="Geheim", board=private, status=statuses["offen"])
    result = delete(ToolContext(principal=as_robot), hidden)
    assert result.code == "task_not_found"
    assert not StagedCall.objects.exists()


def test_the_operation_comes_from_the_validated_content(anna_ctx):
    allow("approvals_test_rows", allowed=["create"])
    assert dispatch("approvals_test_rows", {"mode": "add"}, anna_ctx).ok
    purge = dispatch("approvals_test_rows", {"mode": "purge"}, anna_ctx)
    assert purge.code == "approval_required"
    assert purge.output["operation"] == "mass_delete" and purge.output["reason"] == "policy"
    assert policy_tools.SEEN == [("approvals_test_rows", True)]  # only the allowed call ran


# --- erlaubt / verboten / * -----------------------------------------------------------------
def test_erlaubt_runs_without_asking_and_marks_the_call_approved(anna_ctx, task):
    allow(DELETE, allowed=["delete"])
    result = delete(anna_ctx, task)
    assert result.ok, result.message
    assert not Task.objects.filter(pk=task.pk).exists()
    assert not StagedCall.objects.exists()


def test_star_allows_every_operation_not_forbidden(anna_ctx):
    allow("approvals_test_rows", allowed=["*"], forbidden=["mass_delete"])
    assert dispatch("approvals_test_rows", {"mode": "add"}, anna_ctx).ok
    refused = dispatch("approvals_test_rows", {"mode": "purge"}, anna_ctx)
    assert refused.code == "approval_forbidden"
    assert policy_tools.SEEN == [("approvals_test_rows", True)]
    assert not StagedCall.objects.exists()


def test_verboten_is_never_offered_and_never_run(anna_ctx, task):
    allow(DELETE, forbidden=["*"])
    assert DELETE not in {t.name for t in catalog.visible_tools(anna_ctx)}
    assert DELETE not in {f["function"]["name"] for f in Toolbox().functions(anna_ctx)}
    assert DELETE not in {r["name"] for r in catalog.search(anna_ctx, "aufgaben delete task")}

    result = delete(anna_ctx, task)
    assert (result.ok, result.code) == (False, "approval_forbidden")
    assert Task.objects.filter(pk=task.pk).exists() and not StagedCall.objects.exists()


def test_a_tool_stays_offered_while_one_of_its_operations_is_allowed(anna_ctx):
    allow("approvals_test_rows", forbidden=["mass_delete"])
    assert "approvals_test_rows" in {t.name for t in catalog.visible_tools(anna_ctx)}
    assert dispatch("approvals_test_rows", {"mode": "purge"}, anna_ctx).code == "approval_forbidden"


def test_a_specialists_policy_does_not_touch_the_main_copilot(anna_ctx, task):
    allow(DELETE, forbidden=["*"], specialist_id=7)
    allow(DELETE, allowed=["delete"], specialist_id=8)
    specialist = replace(anna_ctx, specialist_id="7")
    assert DELETE not in {t.name for t in catalog.visible_tools(specialist)}
    assert delete(specialist, task).code == "approval_forbidden"
    assert delete(anna_ctx, task).code == "approval_required"  # the main copilot: the default
    assert delete(replace(anna_ctx, specialist_id="8"), task).ok


# --- standing approvals ---------------------------------------------------------------------
def standing(user, **fields) -> StandingApproval:
    values = {"tool": DELETE, "operation": "delete", "user": user, **fields}
    return StandingApproval.objects.create(**values)


@pytest.mark.parametrize(
    "fields, runs",
    [
        ({}, True),
        ({"expires_at": timezone.now() + timedelta(days=1)}, True),
        ({"expires_at": timezone.now() - timedelta(seconds=1)}, False),
        ({"revoked_at": timezone.now()}, False),
        ({"operation": "update"}, False),
        ({"specialist_id": 3}, False),
        ({"scope_kind": "board", "scope_id": 0}, False),  # narrowed to another board
    ],
)
def test_a_standing_approval_lets_exactly_its_agent_tool_and_operation_pass(
    anna, anna_ctx, task, fields, runs
):
    standing(anna, **fields)
    result = delete(anna_ctx, task)
    assert result.ok is runs, result.code
    assert Task.objects.filter(pk=task.pk).exists() is not runs


def test_a_standing_approval_narrowed_to_the_tasks_board(anna, anna_ctx, task):
    standing(anna, scope_kind="board", scope_id=task.board_id)
    assert delete(anna_ctx, task).ok


def test_another_persons_standing_approval_does_not_count(ben, anna_ctx, task):
    standing(ben)
    assert delete(anna_ctx, task).code == "approval_required"


# --- changes to agents ----------------------------------------------------------------------
def test_changes_to_agents_always_need_an_individual_approval(anna, anna_ctx):
    # Rows the editing service would refuse, written directly: even they do not lift it.
    allow("approvals_test_edit_agent", allowed=["*"])
    StandingApproval.objects.create(user=anna, tool="approvals_test_edit_agent", operation="update")

    result = dispatch("approvals_test_edit_agent", {"name": "Fristenprüfer"}, anna_ctx)

    assert result.code == "approval_required" and result.output["reason"] == "agent_change"
    assert policy_tools.SEEN == []
    # A person approved exactly this call: it runs, and the tool knows it was approved.
    assert dispatch(
        "approvals_test_edit_agent", {"name": "Fristenprüfer"}, replace(anna_ctx, approved=True)
    ).ok
    assert policy_tools.SEEN == [("approvals_test_edit_agent", True)]


# --- foreign content ------------------------------------------------------------------------
def test_after_foreign_content_an_allowed_delete_needs_approval(anna, anna_ctx, task):
    allow(DELETE, allowed=["delete"])
    standing(anna)
    assert dispatch("approvals_test_read_mail", {}, anna_ctx).ok
    assert anna_ctx.foreign.seen

    result = delete(anna_ctx, task)

    assert result.code == "approval_required" and result.output["reason"] == "foreign_content"
    assert StagedCall.objects.get().reason == StagedCall.Reason.FOREIGN_CONTENT
    assert Task.objects.filter(pk=task.pk).exists()
    # What runs by default still runs.
    assert dispatch("approvals_test_rows", {"mode": "add"}, anna_ctx).ok


def test_foreign_content_is_flagged_on_every_tool_that_brings_outside_text_in():
    flagged = {t.name for t in registry.all_tools() if t.reads_foreign_content}
    assert {
        "documents_get",
        "context_search",
        "context_get",
        "notizen_get_note",
        "wiki_get_page",
        "wiki_search",
        "memory_search",
        "memory_get",
        "learning_search",
        "learning_get_object",
    } <= flagged


# --- groups ---------------------------------------------------------------------------------
def test_a_group_row_forbids_a_tool_for_the_main_copilot_of_its_members(anna, ben, task):
    trainees = Group.objects.create(name="Azubis")
    anna.groups.add(trainees)
    allow(DELETE, forbidden=["*"], group=trainees)
    anna_ctx = ToolContext(principal=Principal.for_user(anna))
    ben_ctx = ToolContext(principal=Principal.for_user(ben))

    assert DELETE not in {t.name for t in catalog.visible_tools(anna_ctx)}
    assert delete(anna_ctx, task).code == "approval_forbidden"
    assert DELETE in {t.name for t in catalog.visible_tools(ben_ctx)}
    assert delete(ben_ctx, task).code == "approval_required"


# --- headless -------------------------------------------------------------------------------
def test_headless_default_records_the_call_tells_the_owner_and_goes_on(anna, anna_ctx, task):
    result = delete(replace(anna_ctx, headless=True), task)

    assert (result.ok, result.code) == (False, "approval_unavailable_headless")
    staged = StagedCall.objects.get()
    assert staged.status == StagedCall.Status.RECORDED and result.output["staged_id"] == staged.pk
    note = Notification.objects.get(user=anna)
    assert note.key == f"approvals.recorded:{staged.pk}" and "Umsatzsteuer Q3" in note.body
    assert note.url == "/freigaben/"
    assert Task.objects.filter(pk=task.pk).exists()


def test_headless_deny_refuses_without_recording(anna, anna_ctx, task):
    set_setting("approvals.headless", "deny")
    result = delete(replace(anna_ctx, headless=True), task)
    assert result.code == "approval_unavailable_headless" and result.output["staged_id"] is None
    assert not StagedCall.objects.exists() and not Notification.objects.exists()
    assert Task.objects.filter(pk=task.pk).exists()


def test_the_headless_setting_is_checked():
    from apps.approvals.staging import check_headless_setting

    assert check_headless_setting("deny") == "deny"
    with pytest.raises(InvalidInput):
        check_headless_setting("ask")


# --- surfaces -------------------------------------------------------------------------------
def test_no_tool_that_waits_for_a_person_is_on_the_live_surface():
    live = [t for t in registry.all_tools() if "live" in t.surfaces]
    assert live, "reads opt into live voice"
    for t in live:
        assert all(t.default_for(op) != STAGE for op in t.operations), t.name
        assert "delete" not in t.operations and "mass_delete" not in t.operations, t.name
    assert "live" not in registry.get(DELETE).surfaces


def test_a_delete_cannot_opt_into_the_live_surface():
    with pytest.raises(RegistryError):

        @tool(
            name="approvals_test_live_delete", family="testkit", read_only=False, surfaces=registry.WITH_LIVE
        )
        def live_delete(ctx: ToolContext, args: policy_tools.NoArgs) -> dict:
            """Delete something. For tests."""
            return {}


# --- editing policies -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "fields, field",
    [
        ({"tool": "steuer_zaubern"}, "tool"),
        ({"tool": DELETE, "allowed": ["drop"]}, "allowed"),
        ({"tool": DELETE, "forbidden": "delete"}, "forbidden"),
        ({"tool": DELETE, "allowed": ["delete"], "forbidden": ["delete"]}, "forbidden"),
        ({"tool": DELETE, "allowed": ["delete"], "group_id": 1}, "allowed"),
        ({"tool": DELETE, "group_id": 1}, "forbidden"),
    ],
)
def test_an_invalid_policy_is_a_field_error(fields, field):
    with pytest.raises(PolicyInvalid) as caught:
        policy.check_policy(**fields)
    assert field in caught.value.field_errors
    assert caught.value.code == "approval_policy_invalid"


def test_a_policy_may_not_let_a_specialist_change_agents():
    with pytest.raises(PolicyAgentChange) as caught:
        policy.check_policy(tool="approvals_test_edit_agent", allowed=["*"], specialist_id=4)
    assert caught.value.code == "approval_policy_agent_change"
    assert policy.check_policy(tool="approvals_test_edit_agent", forbidden=["update"], specialist_id=4) == (
        [],
        ["update"],
    )


def test_saving_a_policy_is_for_admins_and_takes_effect_at_once(as_anna, as_boss, anna_ctx, task):
    with pytest.raises(Forbidden):
        policy.save_policy(as_anna, tool=DELETE, allowed=["delete"])
    assert delete(anna_ctx, task).code == "approval_required"  # the cache holds the empty table

    saved = policy.save_policy(as_boss, tool=DELETE, allowed=[" delete ", "delete"])

    assert saved.allowed == ["delete"]
    assert delete(anna_ctx, task).ok  # this process dropped its cache on save
    assert policy.delete_policy(as_boss, saved.pk) == 1
