"""Issue 27.5: a stopped or failed answer says so in its bubble in the reader's language, keeps the
partial answer, offers "Erneut versuchen" on the chat's last answer (the retry service), shows a
failed tool's code and message — the same on the page, over REST and in the status events."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.agent import outcomes, recovery, services
from apps.agent.errors import RunInProgress, RunNotRetryable
from apps.agent.models import Message, Run, RunEvent
from apps.agent.runtime import run_agent
from apps.apikeys.services import issue_device_token
from apps.tools.results import ToolResult
from tests.agent.helpers import ask, say
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

UNREACHABLE = "Das Sprachmodell ist gerade nicht erreichbar."


@pytest.fixture
def api(user):
    _, token = issue_device_token(user, "Annas iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _unreachable(model) -> None:
    model.provider.base_url = "http://127.0.0.1:9/v1"
    model.provider.save()


def _stopped_with_partial(user, text: str = "Teilantwort zur Frist") -> Run:
    """A run the person stopped after the model had streamed `text` (what the runtime writes)."""
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    run = say(principal, session.pk, "Wann endet die Frist?")
    recovery.write(
        run, status=Run.Status.CANCELLED, code="cancelled", reason="stopped", partial_text=text, tools=[]
    )
    return services.finish_run(run, Run.Status.CANCELLED)


# --- the records ----------------------------------------------------------------------------------
def test_a_model_failure_carries_code_and_a_localized_message(user, model):
    _unreachable(model)
    run = ask(user)

    assert run.status == Run.Status.FAILED and run.error_code == "provider_unreachable"
    with translation.override("de"):
        assert outcomes.record(run) == {
            "status": "failed",
            "code": "provider_unreachable",
            "message": UNREACHABLE,
        }
    with translation.override("en"):
        assert outcomes.text(run) == "The language model cannot be reached at the moment."
    with translation.override("it"):
        assert outcomes.text(run) == "Il modello linguistico non è raggiungibile al momento."
    # the status event (socket and SSE) says it in the person's language at once
    status = run.events.filter(kind=RunEvent.Kind.STATUS).get().payload
    assert status == {
        "status": "failed",
        "error_code": "provider_unreachable",
        "reason": "provider_unreachable",
        "message": UNREACHABLE,
    }


def test_an_unknown_failure_code_falls_back_to_the_stored_message(user, model):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    run = say(principal, session.pk, "Hallo")
    services.finish_run(run, Run.Status.FAILED, error_code="something_new", error_message="Etwas Neues.")
    assert outcomes.record(run)["message"] == "Etwas Neues."
    services.finish_run(run, Run.Status.FAILED)  # final already: unchanged
    assert outcomes.reason(run) == "something_new"


def test_a_stop_is_reported_as_stopped_in_every_language(user, model):
    run = _stopped_with_partial(user)
    status = run.events.filter(kind=RunEvent.Kind.STATUS).get().payload
    assert status["status"] == "cancelled" and status["reason"] == "cancelled"
    assert status["message"] == "Gestoppt."
    for language, word in (("de", "Gestoppt."), ("en", "Stopped."), ("it", "Interrotta.")):
        with translation.override(language):
            assert outcomes.text(run) == word


def test_a_completed_run_has_no_outcome(user, model, fake_openai):
    fake_openai.reply("Fertig.")
    run = ask(user)
    assert outcomes.record(run) is None
    assert run.events.filter(kind=RunEvent.Kind.STATUS).get().payload == {
        "status": "completed",
        "error_code": "",
    }


def test_rest_run_and_messages_carry_the_outcome_and_tool_errors(api, user, model, fake_openai):
    fake_openai.tool_calls(("aufgaben_get_task", {"task_id": 999999})).error(503)
    run = ask(user)
    assert run.status == Run.Status.FAILED and run.error_code == "provider_error"

    detail = api.get(f"/api/v1/chat/runs/{run.pk}/").json()["run"]
    assert detail["outcome"] == {
        "status": "failed",
        "code": "provider_error",
        "message": "Das Sprachmodell hat mit einem Fehler geantwortet.",
    }
    assert detail["retry_of_id"] is None
    assert detail["events"][-1]["payload"]["reason"] == "provider_error"
    messages = api.get(f"/api/v1/chat/sessions/{run.session_id}/messages/").json()["messages"]
    assert {m["run_outcome"]["code"] for m in messages} == {"provider_error"}  # every row of the turn
    tool = next(m for m in messages if m["role"] == "tool")
    assert tool["tool_error"]["code"] == json.loads(tool["content"])["code"] != ""
    assert tool["tool_error"]["message"]
    assert all(m["tool_error"] is None for m in messages if m["role"] != "tool")


def test_rest_message_list_reads_the_runs_in_one_query(api, user, model):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    for n in range(6):
        run = say(principal, session.pk, f"Frage {n}")
        services.finish_run(run, Run.Status.FAILED, error_code="provider_timeout")
    url = f"/api/v1/chat/sessions/{session.pk}/messages/"
    api.get(url)
    with CaptureQueriesContext(connection) as six:
        assert len(api.get(url).json()["messages"]) == 6
    run = say(principal, session.pk, "Frage 7")
    services.finish_run(run, Run.Status.CANCELLED)
    with CaptureQueriesContext(connection) as seven:
        assert api.get(url).json()["messages"][-1]["run_outcome"]["code"] == "cancelled"
    assert len(seven) == len(six)


# --- the page -------------------------------------------------------------------------------------
@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_page_shows_the_failure_in_the_bubble_with_retry(web, user, model):
    _unreachable(model)
    run = ask(user)
    body = web.get(reverse("chat:session", args=[run.session_id])).content.decode()

    outcome = body[body.index('class="run-outcome failed"') :]
    assert "Die Antwort ist fehlgeschlagen: " + UNREACHABLE in outcome
    assert '<code class="outcome-code">provider_unreachable</code>' in outcome
    assert "Erneut versuchen" in outcome
    assert reverse("chat:api-run-retry", args=[run.pk]) in outcome
    assert body.index("bubble user") < body.index(f'data-run-id="{run.pk}"')  # after its question


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_page_keeps_the_partial_answer_of_a_stop(web, user, model):
    run = _stopped_with_partial(user)
    body = web.get(reverse("chat:session", args=[run.session_id])).content.decode()
    assert "Teilantwort zur Frist" in body and "Gestoppt." in body
    assert "Ich musste anhalten" not in body and "I had to stop" not in body  # the note is for the model
    assert body.count('class="bubble assistant') == 1
    assert "chat-retry" in body


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_only_the_last_answer_offers_retry_and_nothing_vanishes(web, user, model, fake_openai):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    first = say(principal, session.pk, "Erste Frage")
    services.finish_run(first, Run.Status.FAILED, error_code="provider_timeout")
    fake_openai.reply("Zweite Antwort.")
    second = run_agent(say(principal, session.pk, "Zweite Frage").pk)
    assert second.status == Run.Status.COMPLETED

    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert "Das Sprachmodell hat nicht rechtzeitig geantwortet." in body  # still there
    assert "chat-retry" not in body  # the failed answer is not the last one
    assert body.index("Erste Frage") < body.index("nicht rechtzeitig") < body.index("Zweite Frage")


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_page_shows_a_failed_tool_with_code_and_message(web, user, model):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    run = say(principal, session.pk, "Hole Aufgabe 7")
    result = ToolResult.failure("task_not_found", "Diese Aufgabe gibt es nicht.")
    services.add_message(
        run,
        Message.Role.TOOL,
        json.dumps(result.as_dict()),
        tool_call_id="c1",
        metadata={"name": "aufgaben_get_task", "ok": False, "code": "task_not_found"},
    )
    services.add_message(run, Message.Role.ASSISTANT, "Die Aufgabe gibt es nicht.")
    services.finish_run(run, Run.Status.COMPLETED)

    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    line = body[body.index('<li class="failed"') :]
    assert '<details class="tool-error">' in line
    assert '<code class="tool-error-code">task_not_found</code>' in line
    assert "Diese Aufgabe gibt es nicht." in line
    assert "run-outcome" not in body  # a completed answer has no outcome line


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_page_queries_do_not_grow_with_failed_turns(web, user, model):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    url = reverse("chat:session", args=[session.pk])

    def turn(n: int) -> None:
        run = say(principal, session.pk, f"Frage {n}")
        services.add_message(
            run,
            Message.Role.TOOL,
            "{}",
            tool_call_id=f"c{n}",
            metadata={"name": "x", "ok": False, "code": "e"},
        )
        services.finish_run(
            run, Run.Status.FAILED if n % 2 else Run.Status.CANCELLED, error_code="provider_error"
        )

    turn(1)
    web.get(url)
    with CaptureQueriesContext(connection) as one:
        web.get(url)
    for n in range(2, 8):
        turn(n)
    with CaptureQueriesContext(connection) as seven:
        body = web.get(url).content.decode()
    assert body.count("run-outcome") == 7
    assert len(seven) == len(one)


# --- the retry service ----------------------------------------------------------------------------
def test_retry_of_a_failed_turn_answers_the_same_question(user, model, fake_openai, api):
    _unreachable(model)
    failed = ask(user, "Welche Fristen laufen diese Woche ab?")
    model.provider.base_url = fake_openai.base_url
    model.provider.save()
    fake_openai.reply("Zwei Fristen.")

    response = api.post(f"/api/v1/chat/runs/{failed.pk}/retry/")
    assert response.status_code == 202, response.content
    retry = Run.objects.get(pk=response.json()["run_id"])
    assert retry.retry_of_id == failed.pk and retry.status == Run.Status.QUEUED
    assert retry.model_config_id == failed.model_config_id and retry.max_rounds == failed.max_rounds
    assert retry.session.messages.filter(role=Message.Role.USER).count() == 1  # no second question
    assert run_agent(retry.pk).status == Run.Status.COMPLETED
    sent = fake_openai.chat_requests[-1]["messages"]
    assert sent[-1] == {"role": "user", "content": "Welche Fristen laufen diese Woche ab?"}
    assert api.get(f"/api/v1/chat/runs/{retry.pk}/").json()["run"]["retry_of_id"] == failed.pk


def test_retry_of_a_stop_leaves_the_closing_note_out_and_passes_the_checkpoint(user, model, fake_openai):
    stopped = _stopped_with_partial(user, "Die Frist endet am")
    fake_openai.reply("Die Frist endet am 9. Dezember.")
    retry = services.retry_run(Principal.for_user(user), stopped.pk)
    assert run_agent(retry.pk).status == Run.Status.COMPLETED

    sent = fake_openai.chat_requests[-1]["messages"]
    assert sent[-1] == {"role": "user", "content": "Wann endet die Frist?"}
    assert not any(m["role"] == "assistant" for m in sent)  # the note is not in the transcript
    assert any("Die Frist endet am" in (m["content"] or "") for m in sent if m["role"] == "system")


def test_retry_is_refused_for_a_completed_answer(user, model, fake_openai, api):
    fake_openai.reply("Fertig.")
    done = ask(user)
    with pytest.raises(RunNotRetryable) as refused:
        services.retry_run(Principal.for_user(user), done.pk)
    assert refused.value.details["reason"] == "not_failed"
    response = api.post(f"/api/v1/chat/runs/{done.pk}/retry/")
    assert response.status_code == 409 and response.json()["code"] == "run_not_retryable"


def test_retry_is_refused_for_an_older_turn(user, model, fake_openai):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    first = say(principal, session.pk, "Eins")
    services.finish_run(first, Run.Status.FAILED, error_code="provider_error")
    second = say(principal, session.pk, "Zwei")
    services.finish_run(second, Run.Status.FAILED, error_code="provider_error")

    with pytest.raises(RunNotRetryable) as refused:
        services.retry_run(principal, first.pk)
    assert refused.value.details["reason"] == "not_last_turn"
    assert services.retry_run(principal, second.pk).retry_of_id == second.pk


def test_retry_is_refused_while_a_run_is_active(user, model):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    failed = say(principal, session.pk, "Eins")
    services.finish_run(failed, Run.Status.FAILED, error_code="provider_error")
    retry = services.retry_run(principal, failed.pk)
    with pytest.raises(RunInProgress):
        services.retry_run(principal, failed.pk)  # the first retry still runs
    assert Run.objects.filter(session=session).count() == 2
    services.finish_run(retry, Run.Status.CANCELLED)
    assert services.retry_run(principal, retry.pk).retry_of_id == retry.pk  # a stopped retry again


def test_retry_of_another_persons_run_is_not_found(user, model, api):
    other = Principal.for_user(UserFactory())
    session = services.create_session(other)
    run = say(other, session.pk, "Geheim")
    services.finish_run(run, Run.Status.FAILED, error_code="provider_error")

    response = api.post(f"/api/v1/chat/runs/{run.pk}/retry/")
    assert response.status_code == 404 and response.json()["code"] == "run_not_found"
    assert Run.objects.filter(session=session).count() == 1


def test_the_outcome_statuses_are_the_run_statuses():
    from apps.agent import outcomes
    from apps.agent.models import Run

    assert {Run.Status.FAILED, Run.Status.CANCELLED} == outcomes.RETRYABLE
