"""The whole loop over real HTTP against the scripted model server."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from apps.agent import runtime
from apps.agent.models import Message, Run, RunEvent
from apps.tasks.models import Task
from tests.agent.conftest import SECRET_KEY
from tests.agent.helpers import ask, events, say

pytestmark = pytest.mark.django_db


def test_plain_answer_streams_and_completes(user, model, fake_openai):
    fake_openai.reply("Guten Tag, wie kann ich helfen?", usage=(120, 30))
    run = ask(user, "Hallo")

    assert run.status == Run.Status.COMPLETED
    assert (run.rounds, run.prompt_tokens, run.completion_tokens) == (1, 120, 30)
    assert run.cost == Decimal("0.18")  # 120 × 1000/1M + 30 × 2000/1M
    kinds = [k for k, _ in events(run)]
    assert kinds[0] == "turn" and kinds[-2:] == ["final", "status"]
    streamed = "".join(p["text"] for k, p in events(run) if k == "token")
    assert streamed == "Guten Tag, wie kann ich helfen?"
    answer = run.session.messages.get(role=Message.Role.ASSISTANT)
    assert answer.content == "Guten Tag, wie kann ich helfen?"
    sent = fake_openai.chat_requests[0]
    assert sent["stream"] is True and sent["model"] == "fake-model"
    assert sent["messages"][-1] == {"role": "user", "content": "Hallo"}
    names = {t["function"]["name"] for t in sent["tools"]}
    assert {"aufgaben_create_task", "tool_catalog_search", "tool_execute"} <= names


def test_tool_call_creates_a_task_then_answers(user, model, fake_openai, statuses, board):
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "USt-Voranmeldung Müller"}))
    fake_openai.reply("Die Aufgabe ist angelegt.")
    run = ask(user, "Leg eine Aufgabe an")

    assert run.status == Run.Status.COMPLETED and run.rounds == 2
    task = Task.objects.get(title="USt-Voranmeldung Müller")
    assert task.board == board
    tool_msg = run.session.messages.get(role=Message.Role.TOOL)
    result = json.loads(tool_msg.content)
    assert result["ok"] is True and result["output"]["task"]["id"] == task.pk
    # the second request carries the assistant's tool call and the tool result
    second = fake_openai.chat_requests[1]["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "aufgaben_create_task"
    assert second[-1]["role"] == "tool" and json.loads(second[-1]["content"])["ok"] is True
    finished = [p for k, p in events(run) if k == "tool_finished"]
    assert finished[0]["name"] == "aufgaben_create_task" and finished[0]["ok"] is True


def test_invalid_arguments_are_fed_back_and_the_model_corrects_itself(
    user, model, fake_openai, statuses, board
):
    fake_openai.tool_calls(("aufgaben_create_task", {"title": ""}))
    fake_openai.tool_calls(("aufgaben_create_task", '{"title": "kaputt'))  # malformed JSON
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "Richtig"}))
    fake_openai.reply("Erledigt.")
    run = ask(user, "Aufgabe bitte")

    assert run.status == Run.Status.COMPLETED and run.rounds == 4
    assert list(Task.objects.values_list("title", flat=True)) == ["Richtig"]
    results = [json.loads(m.content) for m in run.session.messages.filter(role=Message.Role.TOOL)]
    assert [r["code"] for r in results] == ["invalid_arguments", "invalid_arguments", None]
    assert "title" in results[0]["message"]
    # the broken JSON was replaced in the transcript sent back, so the provider accepts it
    third = fake_openai.chat_requests[2]["messages"]
    assert [m for m in third if m.get("tool_calls")][1]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_unknown_tool_is_fed_back(user, model, fake_openai):
    fake_openai.tool_calls(("steuer_zaubern", {}))
    fake_openai.reply("Das kann ich nicht.")
    run = ask(user)

    assert run.status == Run.Status.COMPLETED and run.rounds == 2
    result = json.loads(run.session.messages.get(role=Message.Role.TOOL).content)
    assert result["ok"] is False and result["code"] == "unknown_tool"


def test_max_rounds_reached_writes_a_closing_text(user, model, fake_openai):
    for _ in range(3):
        fake_openai.tool_calls(("session_status", {}))
    run = ask(user, max_rounds=2)

    assert run.status == Run.Status.MAX_ROUNDS_REACHED and run.rounds == 2
    assert len(fake_openai.chat_requests) == 2
    closing = run.session.messages.filter(role=Message.Role.ASSISTANT).last()
    assert closing.metadata == {"closing": "max_rounds_reached"} and closing.content


def test_budget_exceeded_stops_with_closing_text(user, model, fake_openai):
    fake_openai.tool_calls(("session_status", {}), usage=(1000, 0))  # 1000 × 1000/1M = 1.00
    fake_openai.reply("nie gesendet")
    run = ask(user, budget="0.5")

    assert run.status == Run.Status.BUDGET_EXCEEDED and run.cost == Decimal("1")
    assert len(fake_openai.chat_requests) == 1


def test_provider_401_fails_with_diagnostics_and_no_key_anywhere(user, model, fake_openai):
    fake_openai.error(401, f"Incorrect API key provided: {SECRET_KEY}")
    run = ask(user)

    assert run.status == Run.Status.FAILED and run.error_code == "provider_auth"
    assert run.diagnostics["abort_cause"] == "provider_error"
    assert run.diagnostics["provider"] == "Fake" and run.diagnostics["model"] == "fake-model"
    assert run.diagnostics["last_event"]["kind"] == "turn"
    dumped = json.dumps([run.error_message, run.diagnostics, events(run)])
    assert SECRET_KEY not in dumped and "sk-" not in dumped
    assert run.session.messages.filter(role=Message.Role.USER).count() == 1  # nothing lost


@pytest.mark.parametrize(("status", "code"), [(429, "provider_rate_limited"), (500, "provider_error")])
def test_other_provider_errors_have_stable_codes(user, model, fake_openai, status, code):
    fake_openai.error(status)
    run = ask(user)
    assert run.status == Run.Status.FAILED and run.error_code == code


def test_unreachable_provider(user, model):
    model.provider.base_url = "http://127.0.0.1:9/v1"
    model.provider.save()
    run = ask(user)
    assert run.status == Run.Status.FAILED and run.error_code == "provider_unreachable"


def test_temporal_block_uses_the_profile_or_the_client_time_zone(user, model, fake_openai):
    user.time_zone = "America/New_York"
    user.save()
    fake_openai.reply("a").reply("b")
    ask(user)
    ask(user, time_zone="Asia/Tokyo")
    prompts = [r["messages"][0]["content"] for r in fake_openai.chat_requests]
    assert "America/New_York" in prompts[0] and "Current date and time:" in prompts[0]
    assert "Asia/Tokyo" in prompts[1]


def test_invalid_client_time_zone_falls_back_to_the_profile(user, model, fake_openai):
    fake_openai.reply("a")
    ask(user, time_zone="Mars/Olympus")
    assert "Europe/Berlin" in fake_openai.chat_requests[0]["messages"][0]["content"]


def test_context_provider_failure_is_skipped_and_output_is_injected(user, model, fake_openai, monkeypatch):
    def broken(rc):
        raise RuntimeError("index down")

    monkeypatch.setattr(
        runtime, "context_providers", lambda: [broken, lambda rc: f"Wissen für Runde {rc.round}"]
    )
    fake_openai.reply("ok")
    run = ask(user)
    assert run.status == Run.Status.COMPLETED
    assert {"role": "system", "content": "Wissen für Runde 1"} in fake_openai.chat_requests[0]["messages"]


def test_cancel_between_rounds_ends_cancelled(user, model, fake_openai, monkeypatch):
    from apps.agent import services

    def cancel_in_round_two(rc):
        if rc.round == 2:
            services.request_cancel(rc.run)

    monkeypatch.setattr(runtime, "context_providers", lambda: [cancel_in_round_two])
    fake_openai.tool_calls(("session_status", {})).reply("nie")
    run = ask(user)

    assert run.status == Run.Status.CANCELLED and len(fake_openai.chat_requests) == 1
    assert run.events.filter(kind=RunEvent.Kind.STATUS, payload__status="cancelled").exists()


def test_queued_run_cancelled_before_start_never_calls_the_model(user, model, fake_openai):
    from apps.accounts.principal import Principal
    from apps.agent import services
    from apps.agent.runtime import run_agent

    p = Principal.for_user(user)
    session = services.create_session(p)
    run = say(p, session.pk, "Hallo")
    assert services.cancel_run(p, run.pk).status == Run.Status.CANCELLING
    assert run_agent(run.pk).status == Run.Status.CANCELLED
    assert fake_openai.chat_requests == []


def test_history_is_sent_on_the_next_turn(user, model, fake_openai):
    from apps.accounts.principal import Principal
    from apps.agent import services
    from apps.agent.runtime import run_agent

    p = Principal.for_user(user)
    session = services.create_session(p)
    fake_openai.reply("Erste Antwort").reply("Zweite Antwort")
    run_agent(say(p, session.pk, "Eins").pk)
    run_agent(say(p, session.pk, "Zwei").pk)
    sent = fake_openai.chat_requests[1]["messages"][1:]
    assert [m["content"] for m in sent] == ["Eins", "Erste Antwort", "Zwei"]
