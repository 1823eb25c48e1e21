"""Staging on every surface: the agent runtime (the scripted model over real HTTP) pauses the run
without a final answer, the REST surface answers 202, MCP a result that is no error, and the
catalogs leave forbidden tools out."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

import tests.approvals.policy_tools  # noqa: F401  (registers the test tools)
from apps.accounts.principal import Principal
from apps.agent.errors import RunInProgress
from apps.agent.models import Message, Run, RunEvent
from apps.apikeys import services as keys
from apps.approvals.models import Policy, StagedCall
from apps.mcp_server.server import envelope
from apps.tasks.models import Board, Task
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.agent.conftest import model, provider  # noqa: F401  (fixtures)
from tests.agent.helpers import ask, events, say

pytestmark = pytest.mark.django_db

DELETE = "aufgaben_delete_task"


@pytest.fixture
def task(statuses):
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    return Task.objects.create(title="Umsatzsteuer Q3", board=board, status=statuses["offen"])


# --- the agent runtime ----------------------------------------------------------------------
def test_a_delete_pauses_the_run_for_a_person_and_deletes_nothing(user, model, fake_openai, task):  # noqa: F811
    fake_openai.tool_calls(("aufgaben_list_tasks", {}), ("aufgaben_delete_task", {"task_id": task.pk}))
    fake_openai.reply("This answer must never be asked for.")

    run = ask(user, "Lösche die Aufgabe Umsatzsteuer Q3")

    run.refresh_from_db()
    assert run.status == Run.Status.WAITING and run.lease_expires_at is None
    assert len(fake_openai.chat_requests) == 1  # the loop ended without a final answer
    assert Task.objects.filter(pk=task.pk).exists()
    staged = StagedCall.objects.get()
    assert (staged.run_id, staged.tool, staged.status) == (run.pk, DELETE, StagedCall.Status.PENDING)
    call = run.session.messages.get(role=Message.Role.ASSISTANT).tool_calls[1]
    assert staged.call_id == call["id"] and staged.user == user
    kinds = [k for k, _ in events(run)]
    assert "final" not in kinds and kinds[-2:] == ["approval", "status"]
    approval = dict(events(run))["approval"]
    assert approval == {
        "staged_id": staged.pk,
        "preview": staged.preview,
        "tool": DELETE,
        "operation": "delete",
        "reason": "default",
        "call_id": call["id"],
    }
    assert dict(events(run))["status"]["status"] == Run.Status.WAITING
    tool_result = json.loads(run.session.messages.get(tool_call_id=call["id"]).content)
    assert tool_result["code"] == "approval_required"
    # The chat waits for the decision: a new message is refused while the run waits.
    with pytest.raises(RunInProgress):
        say(Principal.for_user(user), run.session_id, "Und?")


def test_a_run_that_read_foreign_content_keeps_it_across_a_resume(user, model, fake_openai, task):  # noqa: F811
    Policy.objects.create(tool=DELETE, allowed=["delete"])
    fake_openai.tool_calls(("approvals_test_read_mail", {}))
    fake_openai.tool_calls(("tool_execute", {"tool": DELETE, "arguments": json.dumps({"task_id": task.pk})}))

    run = ask(user, "Lies die Mail und tu, was drin steht")

    run.refresh_from_db()
    assert run.status == Run.Status.WAITING
    assert run.diagnostics["foreign_content"] == {"since_round": 1}
    staged = StagedCall.objects.get()  # staged through tool_execute: the inner call survived
    assert staged.tool == DELETE and staged.reason == StagedCall.Reason.FOREIGN_CONTENT
    assert Task.objects.filter(pk=task.pk).exists()

    # A decision requeues the run (apps.approvals.decisions does this); the resumed loop knows
    # what the run read before the pause, so a second allowed delete is staged too.
    second = Task.objects.create(title="Lohn", board=task.board, status=task.status)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.QUEUED)
    fake_openai.tool_calls(("aufgaben_delete_task", {"task_id": second.pk}))
    from apps.agent.runtime import run_agent

    run = run_agent(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.WAITING and run.rounds == 3
    assert StagedCall.objects.filter(reason=StagedCall.Reason.FOREIGN_CONTENT).count() == 2
    assert Task.objects.filter(pk=second.pk).exists()


def test_the_runtime_offers_no_forbidden_tool(user, model, fake_openai):  # noqa: F811
    Policy.objects.create(tool="aufgaben_create_task", forbidden=["*"])
    fake_openai.reply("Hallo.")
    ask(user, "Hallo")
    names = {t["function"]["name"] for t in fake_openai.chat_requests[0]["tools"]}
    assert "aufgaben_create_task" not in names and "aufgaben_list_tasks" in names


def test_the_system_prompt_says_tool_output_is_data(user, model, fake_openai):  # noqa: F811
    fake_openai.reply("Hallo.")
    ask(user, "Hallo")
    system = fake_openai.chat_requests[0]["messages"][0]["content"]
    assert "never instructions" in system


# --- REST and MCP ---------------------------------------------------------------------------
@pytest.fixture
def api(boss):
    cache.clear()
    _, plaintext = keys.create_api_key(Principal.for_user(boss), name="cli", scopes=("tools:execute",))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    yield client
    cache.clear()


def execute(client, tool: str, arguments: dict):
    body = json.dumps({"tool": tool, "arguments": arguments})
    return client.post("/api/v1/tools/execute", data=body, content_type="application/json")


def test_rest_answers_202_with_the_staged_id(api, boss, task):
    response = execute(api, DELETE, {"task_id": task.pk})

    assert response.status_code == 202
    body = response.json()
    staged = StagedCall.objects.get()
    assert (body["ok"], body["code"], body["output"]["staged_id"]) == (False, "approval_required", staged.pk)
    assert staged.surface == "api" and staged.api_key and staged.user == boss and staged.run is None
    assert Task.objects.filter(pk=task.pk).exists()


def test_rest_answers_403_for_a_forbidden_tool_and_lists_no_forbidden_tool(api, task):
    Policy.objects.create(tool=DELETE, forbidden=["*"])
    assert execute(api, DELETE, {"task_id": task.pk}).status_code == 403
    listed = {t["name"] for t in api.get("/api/v1/tools").json()["tools"]}
    assert DELETE not in listed and "aufgaben_list_tasks" in listed
    assert not StagedCall.objects.exists()


def test_mcp_answers_a_staged_call_as_accepted_with_its_id(anna_ctx, task):
    result = dispatch(DELETE, {"task_id": task.pk}, ToolContext(principal=anna_ctx.principal, surface="api"))
    answer = envelope(result)
    staged = StagedCall.objects.get()
    assert answer.is_error is False
    assert f"staged call {staged.pk}" in answer.content[0].text
    assert answer.structured_content["code"] == "approval_required"


def test_approval_events_are_a_run_event_kind():
    assert RunEvent.Kind.APPROVAL == "approval"
