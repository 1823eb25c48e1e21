"""The proof of #13: a fact told in one chat is used in a new chat. Both chats go through the real
chat endpoint and a real Celery worker; the models are the scripted OpenAI-compatible server.
Run with `-s` to see the transcript."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from apps.agent.models import Message, Run
from apps.apikeys.services import issue_device_token
from apps.learning.models import LearningJobRun, LearningObject
from apps.learning.prompt_layer import HEAD
from tests.waiting import wait_for
from tests.workers import in_process_worker

pytestmark = pytest.mark.django_db(transaction=True)

TOLD = "Zur Info für später: Unsere Kanzlei ist freitags ab 13 Uhr geschlossen."
QUOTE = "Unsere Kanzlei ist freitags ab 13 Uhr geschlossen"
FACT = "Die Kanzlei ist freitags ab 13 Uhr geschlossen."
ASKED = "Ein Mandant möchte am Freitag um 15 Uhr vorbeikommen. Geht das?"
USED = "Leider nein: Freitags ist die Kanzlei ab 13 Uhr geschlossen [learning:{id}]. Besser vor 13 Uhr."


def _api(user) -> APIClient:
    _, token = issue_device_token(user, "Testgerät")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _chat(api: APIClient, text: str) -> Run:
    session = api.post("/api/v1/chat/sessions/", {"title": ""}, format="json")
    assert session.status_code == 201, session.content
    session_id = session.json()["session"]["id"]
    queued = api.post(f"/api/v1/chat/sessions/{session_id}/messages/", {"content": text}, format="json")
    assert queued.status_code == 202, queued.content
    run_id = queued.json()["run_id"]
    assert wait_for(lambda: Run.objects.get(pk=run_id).is_final)
    return Run.objects.get(pk=run_id)


def _answer(run: Run) -> str:
    return run.messages.filter(role=Message.Role.ASSISTANT).order_by("-id").first().content


def test_a_fact_told_in_one_chat_is_used_in_a_new_chat(user, chat_model, extraction_model, fake_openai):
    api = _api(user)
    fake_openai.reply("Danke, ich habe es mir notiert.", model="chat-model")
    fake_openai.reply(
        json.dumps(
            {
                "items": [
                    {
                        "kind": "durable_fact",
                        "text": FACT,
                        "subject": "office.opening_hours",
                        "quote": QUOTE,
                        "confidence": 0.95,
                    }
                ]
            },
            ensure_ascii=False,
        ),
        model="extractor",
    )
    fake_openai.reply('{"items": []}', model="extractor")  # chat 2 teaches nothing new
    seen: dict = {}

    def check_layer(body: dict) -> None:
        seen["system"] = [m["content"] for m in body["messages"] if m["role"] == "system"]

    with in_process_worker():
        first = _chat(api, TOLD)
        logged = wait_for(lambda: LearningJobRun.objects.filter(run_id=first.pk).first())
        learned = LearningObject.objects.get(subject="office.opening_hours")
        fake_openai.reply(USED.format(id=learned.pk), model="chat-model", before=check_layer)
        second = _chat(api, ASKED)
        wait_for(lambda: LearningJobRun.objects.filter(run_id=second.pk).exists())

    assert first.status == second.status == Run.Status.COMPLETED
    assert first.session_id != second.session_id
    assert logged.outcome == "done" and learned.status == LearningObject.Status.ACTIVE
    assert learned.evidence.get().run_id == first.pk
    chat_requests = fake_openai.requests_for("chat-model")
    assert len(chat_requests) == 2
    first_system = " ".join(m["content"] for m in chat_requests[0]["messages"] if m["role"] == "system")
    assert FACT not in first_system  # nothing was known before chat 1
    layer = next(text for text in seen["system"] if text.startswith(HEAD))
    assert f"- [learning:{learned.pk}] {FACT}" in layer and "not instructions" in layer
    assert [m["content"] for m in chat_requests[1]["messages"] if m["role"] == "user"] == [ASKED]
    answer = _answer(second)
    assert "ab 13 Uhr geschlossen" in answer

    print(f"\n--- Chat 1 (session {first.session_id}, run {first.pk}) ---")
    print(f"User:      {TOLD}")
    print(f"Copilot:   {_answer(first)}")
    print(f"--- Extraction job (worker, model {logged.model_label}) ---")
    print(f"Outcome:   {logged.outcome} {json.dumps(logged.counts)}")
    print(f"Learned:   [learning:{learned.pk}] {learned.text} (status {learned.status})")
    print(f"Evidence:  run {first.pk}: “{learned.evidence.get().quote}”")
    print(f"--- Chat 2 (new session {second.session_id}, run {second.pk}) ---")
    print("System layer sent to the model:")
    print("\n".join("    " + line for line in layer.splitlines()))
    print(f"User:      {ASKED}")
    print(f"Copilot:   {answer}")
