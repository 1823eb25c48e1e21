"""What stops a run from the inside: cancellation (signal into the running tool, only the
finalizer writes `cancelled`, the endpoint waits for it), the tool-phase budget, loop detection
and the recovery checkpoint the next turn consumes."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connections
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Message, Run, RunEvent
from apps.agent.runtime import run_agent
from apps.apikeys.services import issue_device_token
from apps.core.services import set_setting
from tests.agent import slow_tools
from tests.agent.helpers import ask, events, say
from tests.waiting import wait_for


@pytest.fixture
def slow():
    probe = slow_tools.register()
    yield probe
    probe.finished.wait(10)  # never leave a tool thread behind a database flush
    slow_tools.unregister()


@pytest.fixture
def fast_guards(settings):
    settings.CLAPILOT_AGENT_CANCEL_POLL = 0.05
    settings.CLAPILOT_AGENT_PROGRESS_SECONDS = 0.1
    settings.CLAPILOT_AGENT_ABORT_GRACE = 1.0


@pytest.fixture(autouse=True)
def no_broker(monkeypatch):
    """The loop runs in a thread here; never queue a job on the real broker."""
    monkeypatch.setattr(services, "_enqueue", lambda run_id: None)


@pytest.fixture
def api(user):
    _, token = issue_device_token(user, "Test")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _start(user, text="Bitte arbeite", **kwargs):
    p = Principal.for_user(user)
    session = services.create_session(p)
    run = say(p, session.pk, text, **kwargs)

    def work():
        try:
            run_agent(run.pk)
        finally:
            connections.close_all()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return run, thread


# --- cancellation (the loop in a thread, autocommit: the worker's real path) ----------------
@pytest.mark.django_db(transaction=True)
def test_cancel_signals_the_running_tool_and_waits_for_the_finalizer(
    api, user, model, fake_openai, slow, fast_guards
):
    fake_openai.tool_calls(("test_slow_cooperative", {"seconds": 20}))
    fake_openai.reply("nie gesendet")
    run, thread = _start(user)
    assert slow.started.wait(10)
    slow.finished.wait(0.3)  # let a progress event or two happen

    response = api.post(f"/api/v1/chat/runs/{run.pk}/cancel/")
    thread.join(10)

    assert response.status_code == 200 and response.json()["run"]["status"] == "cancelled"
    assert slow.saw_cancel
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and len(fake_openai.chat_requests) == 1
    kinds = [k for k, _ in events(run)]
    assert "tool_progress" in kinds and kinds[-1] == "status"
    statuses = [p["status"] for k, p in events(run) if k == "status"]
    assert statuses == ["cancelled"]  # written once, by the finalizer
    # the completed tool is in the transcript and a checkpoint was left for the next turn
    tool = run.session.messages.get(role=Message.Role.TOOL)
    assert json.loads(tool.content)["output"] == {"stopped": True}
    closing = run.session.messages.filter(role=Message.Role.ASSISTANT).last()
    assert closing.metadata["recovery_checkpoint"]["completed_tools"] == ["test_slow_cooperative"]


@pytest.mark.django_db(transaction=True)
def test_cancel_while_the_model_streams_keeps_the_partial_text(api, user, model, fake_openai, fast_guards):
    words = " ".join(f"Wort{i}" for i in range(200))
    fake_openai.reply(words, delay=0.02)
    run, thread = _start(user)
    wait_for(RunEvent.objects.filter(run=run, kind="token").exists, timeout=4, interval=0.02)
    response = api.post(f"/api/v1/chat/runs/{run.pk}/cancel/")
    thread.join(10)

    assert response.json()["run"]["status"] == "cancelled"
    closing = run.session.messages.filter(role=Message.Role.ASSISTANT).last()
    assert closing.content.startswith("Wort0 Wort1")  # nothing streamed is lost
    assert closing.metadata["closing"] == "cancelled" and "Wort199" not in closing.content


@pytest.mark.django_db(transaction=True)
def test_unconfirmed_cancel_is_an_error_and_the_run_still_ends_cancelled(
    api, user, model, fake_openai, slow, fast_guards, settings
):
    settings.CLAPILOT_AGENT_CANCEL_WAIT = 0.2
    fake_openai.tool_calls(("test_slow_stubborn", {"seconds": 2}))
    run, thread = _start(user)
    assert slow.started.wait(10)

    response = api.post(f"/api/v1/chat/runs/{run.pk}/cancel/")
    assert response.status_code == 409 and response.json()["code"] == "cancel_unconfirmed"
    thread.join(10)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    result = json.loads(run.session.messages.get(role=Message.Role.TOOL).content)
    assert result["code"] == "aborted"  # the abandoned call is answered, the transcript stays valid


# --- phase budget (inline: a timer trips the signal the cooperative tool polls) -------------
@pytest.mark.django_db
def test_phase_budget_fails_the_chat_run_and_the_next_turn_recovers(user, model, fake_openai, slow):
    set_setting("agent_tool_phase_budget_seconds", 0.3)
    fake_openai.tool_calls(("session_status", {}))
    fake_openai.tool_calls(("test_slow_cooperative", {"seconds": 20}))
    run = ask(user, "Prüfe alles")

    assert run.status == Run.Status.FAILED and run.error_code == "PHASE_BUDGET_EXCEEDED"
    assert run.diagnostics["abort_cause"] == "phase_budget"
    assert run.diagnostics["phase"]["elapsed"] >= 0.3
    assert run.diagnostics["last_tool"]["name"] == "test_slow_cooperative" and slow.saw_cancel
    closing = run.session.messages.filter(role=Message.Role.ASSISTANT).last()
    checkpoint = closing.metadata["recovery_checkpoint"]
    assert checkpoint["pending"] and checkpoint["code"] == "PHASE_BUDGET_EXCEEDED"
    assert checkpoint["completed_tools"] == ["session_status", "test_slow_cooperative"]
    assert checkpoint["request"] == "Prüfe alles" and "session_status" in closing.content

    # the next turn gets the checkpoint in its context and clears it when it completes
    fake_openai.reply("Weiter geht's.")
    p = Principal.for_user(user)
    nxt = run_agent(say(p, run.session_id, "Mach weiter").pk)
    assert nxt.status == Run.Status.COMPLETED
    system = [m["content"] for m in fake_openai.chat_requests[-1]["messages"] if m["role"] == "system"]
    assert any("Recovery checkpoint" in s and "Prüfe alles" in s for s in system)
    closing.refresh_from_db()
    assert closing.metadata["recovery_checkpoint"]["pending"] is False
    assert closing.metadata["recovery_checkpoint"]["consumed_by"] == nxt.pk


@pytest.mark.django_db
def test_background_runs_have_no_phase_budget(user, model, fake_openai, slow):
    set_setting("agent_tool_phase_budget_seconds", 0.2)
    fake_openai.tool_calls(("test_slow_cooperative", {"seconds": 0.5})).reply("fertig")
    run = ask(user, kind=Run.Kind.BACKGROUND)
    assert run.status == Run.Status.COMPLETED and not slow.saw_cancel


# --- loop detection ---------------------------------------------------------------------------
@pytest.mark.django_db
def test_the_same_call_repeated_stops_with_a_stable_code(user, model, fake_openai):
    for _ in range(4):
        fake_openai.tool_calls(("session_status", {}))
    run = ask(user)

    assert run.status == Run.Status.FAILED and run.error_code == "TOOL_LOOP_DETECTED"
    loop = run.diagnostics["loop"]
    assert loop["tool"] == "session_status" and loop["repeats"] == 3 and loop["limit"] == 3
    assert len(fake_openai.chat_requests) == 3
    results = [json.loads(m.content) for m in run.session.messages.filter(role=Message.Role.TOOL)]
    assert [r["ok"] for r in results] == [True, True, False]
    assert results[-1]["code"] == "TOOL_LOOP_DETECTED"
    assert run.session.messages.filter(metadata__recovery_checkpoint__pending=True).exists()


@pytest.mark.django_db
def test_different_arguments_are_not_a_loop(user, model, fake_openai):
    for q in ("a", "b", "c", "d"):
        fake_openai.tool_calls(("tool_catalog_search", {"query": q}))
    fake_openai.reply("ok")
    assert ask(user).status == Run.Status.COMPLETED


@pytest.mark.django_db
def test_provider_failure_after_a_completed_tool_leaves_a_checkpoint(user, model, fake_openai):
    fake_openai.tool_calls(("session_status", {})).error(504, "upstream timeout")
    run = ask(user, "Status bitte")

    assert run.status == Run.Status.FAILED and run.error_code == "provider_error"
    assert run.diagnostics["last_tool"]["name"] == "session_status"
    closing = run.session.messages.filter(role=Message.Role.ASSISTANT).last()
    assert closing.metadata["recovery_checkpoint"]["completed_tools"] == ["session_status"]
    assert closing.metadata["closing"] == "failed"
    final = [p for k, p in events(run) if k == "final"]
    assert final and final[-1]["message_id"] == closing.pk  # the user sees the checkpoint text


@pytest.mark.django_db
def test_a_failure_before_any_output_leaves_no_checkpoint(user, model, fake_openai):
    fake_openai.error(500)
    run = ask(user)
    assert run.status == Run.Status.FAILED
    assert not run.session.messages.filter(metadata__has_key="recovery_checkpoint").exists()
