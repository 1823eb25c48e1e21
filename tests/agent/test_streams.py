"""The run events as SSE, and the stateless inference passthrough for API keys."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.agent.models import InferenceUsage, Run
from apps.apikeys.services import create_api_key, issue_device_token
from apps.clients.models import Client
from tests.agent.conftest import SECRET_KEY
from tests.agent.helpers import ask

pytestmark = pytest.mark.django_db


def _read(response) -> str:
    content = response.streaming_content
    if hasattr(content, "__aiter__"):  # the async SSE view

        async def collect() -> list:
            return [part async for part in content]

        content = async_to_sync(collect)()
    return b"".join(p if isinstance(p, bytes) else p.encode() for p in content).decode()


def _sse_events(body: str) -> list[dict]:
    return [
        json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: {") and '"kind"' in line
    ]


# --- SSE (transactional: the stream closes its connections when it ends, like in production) --
@pytest.fixture
def no_broker(monkeypatch):
    from apps.agent import services

    monkeypatch.setattr(services, "_enqueue", lambda run_id: None)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_broker")
def test_run_events_stream_as_sse_and_end_after_the_final_status(user, model, fake_openai, client):
    fake_openai.tool_calls(("session_status", {})).reply("Fertig.")
    run = ask(user)
    client.force_login(user)
    response = client.get(f"/api/v1/chat/runs/{run.pk}/events/stream")

    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    body = _read(response)
    sent = _sse_events(body)
    assert [e["id"] for e in sent] == list(run.events.order_by("id").values_list("id", flat=True))
    assert "event: tool_started\n" in body and "event: final\n" in body
    assert sent[-1]["kind"] == "status" and body.rstrip().endswith("event: end\ndata: {}")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_broker")
def test_sse_resumes_after_a_cursor_and_accepts_device_tokens(user, model, fake_openai):
    fake_openai.reply("Hallo zurück")
    run = ask(user)
    ids = list(run.events.order_by("id").values_list("id", flat=True))
    _, token = issue_device_token(user, "Tablet")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = api.get(f"/api/v1/chat/runs/{run.pk}/events/stream", HTTP_LAST_EVENT_ID=str(ids[-2]))
    assert [e["id"] for e in _sse_events(_read(response))] == [ids[-1]]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_broker")
def test_sse_of_a_foreign_run_is_404(user, model, fake_openai, client):
    from tests.factories import UserFactory

    fake_openai.reply("x")
    run = ask(user)
    client.force_login(UserFactory())
    assert client.get(f"/api/v1/chat/runs/{run.pk}/events/stream").status_code == 404
    assert APIClient().get(f"/api/v1/chat/runs/{run.pk}/events/stream").status_code == 401


# --- inference passthrough --------------------------------------------------------------------
def _key_client(admin_user, scopes) -> APIClient:
    _, plaintext = create_api_key(Principal.for_user(admin_user), name="Integr", scopes=scopes)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return api


def test_inference_models_and_completion(admin_user, model, fake_openai):
    api = _key_client(admin_user, ["inference:execute"])
    listed = api.get("/api/v1/inference/models").json()
    assert listed["object"] == "list" and [m["id"] for m in listed["data"]] == ["fake-model"]

    fake_openai.reply("Die Antwort.", usage=(100, 20))
    body = {"model": "fake-model", "messages": [{"role": "user", "content": "Frage"}]}
    response = api.post("/api/v1/inference/chat/completions", body, format="json")

    assert response.status_code == 200, response.content
    data = response.json()
    assert data["object"] == "chat.completion" and data["choices"][0]["message"]["content"] == "Die Antwort."
    assert data["usage"] == {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    assert not Run.objects.exists()  # stateless
    usage = InferenceUsage.objects.get()
    assert (usage.prompt_tokens, usage.completion_tokens, usage.api_key.name) == (100, 20, "Integr")
    assert "tools" not in fake_openai.chat_requests[0]


def test_inference_streams_openai_chunks_and_neutralizes(admin_user, model, fake_openai):
    Client.objects.create(name="Theodora Quellmalz", kind="person", client_number="K-1")
    fake_openai.forbid("Quellmalz")
    fake_openai.reply("Hallo [MANDANT_1]!")
    api = _key_client(admin_user, ["inference:execute"])
    body = {"messages": [{"role": "user", "content": "Grüß Theodora Quellmalz"}], "stream": True}
    response = api.post("/api/v1/inference/chat/completions", body, format="json")

    text = _read(response)
    chunks = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
    content = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c.get("choices"))
    assert content == "Hallo Theodora Quellmalz!" and text.rstrip().endswith("data: [DONE]")
    assert fake_openai.violations == []
    assert InferenceUsage.objects.get().stream is True


def test_inference_needs_the_scope_and_refuses_malformed_tools(admin_user, user, model, fake_openai):
    wrong = _key_client(admin_user, ["tools:execute"])
    denied = wrong.get("/api/v1/inference/models")
    assert denied.status_code == 403 and denied.json()["error"]["type"] == "permission_error"
    right = _key_client(admin_user, ["inference:execute"])
    body = {"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function"}]}
    refused = right.post("/api/v1/inference/chat/completions", body, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_request"
    assert refused.json()["error"]["param"] == "tools"
    # members (device tokens) use the chat, not the passthrough
    _, token = issue_device_token(user, "Phone")
    member = APIClient()
    member.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert member.get("/api/v1/inference/models").status_code == 403
    assert fake_openai.chat_requests == []


def test_inference_provider_error_is_recorded_without_the_key(admin_user, model, fake_openai):
    fake_openai.error(401, f"bad key {SECRET_KEY}")
    api = _key_client(admin_user, ["inference:execute"])
    response = api.post(
        "/api/v1/inference/chat/completions", {"messages": [{"role": "user", "content": "x"}]}, format="json"
    )
    assert response.status_code == 502 and response.json()["code"] == "provider_auth"
    assert SECRET_KEY not in response.content.decode()
    usage = InferenceUsage.objects.get()
    assert usage.ok is False and usage.error_code == "provider_auth"
