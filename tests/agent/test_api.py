"""REST API of the chat: device-token auth, 202 + run_id, run status, cancel, owner only."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Message, Run
from apps.apikeys.services import issue_device_token
from tests.agent.helpers import say
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(user):
    _, token = issue_device_token(user, "Annas iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_sessions_create_and_list(api):
    created = api.post("/api/v1/chat/sessions/", {"title": "Umsatzsteuer"}, format="json")
    assert created.status_code == 201
    listed = api.get("/api/v1/chat/sessions/").json()["sessions"]
    assert [s["title"] for s in listed] == ["Umsatzsteuer"]


def test_post_message_answers_202_and_queues_a_run(
    api, user, model, django_capture_on_commit_callbacks, monkeypatch
):
    queued = []
    monkeypatch.setattr(services, "_enqueue", queued.append)
    session = services.create_session(Principal.for_user(user))
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/chat/sessions/{session.pk}/messages/",
            {"content": "Hallo", "max_rounds": 5},
            format="json",
            HTTP_X_USER_TIMEZONE="Europe/Vienna",
        )
    assert response.status_code == 202
    run = Run.objects.get(pk=response.json()["run_id"])
    assert queued == [run.pk]
    assert (run.status, run.max_rounds, run.time_zone) == ("queued", 5, "Europe/Vienna")
    messages = api.get(f"/api/v1/chat/sessions/{session.pk}/messages/").json()["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [("user", "Hallo")]
    # a second message while the run is active is refused with a stable code
    again = api.post(f"/api/v1/chat/sessions/{session.pk}/messages/", {"content": "Und?"}, format="json")
    assert again.status_code == 400 and again.json()["code"] == "run_in_progress"


def test_bad_input_is_refused_and_nothing_written(api, user, model):
    session = services.create_session(Principal.for_user(user))
    url = f"/api/v1/chat/sessions/{session.pk}/messages/"
    assert api.post(url, {"content": ""}, format="json").status_code == 400
    assert api.post(url, {"content": "x", "max_rounds": 101}, format="json").status_code == 400
    assert not Message.objects.exists() and not Run.objects.exists()


def test_no_model_configured_is_a_clear_409(api, user):
    session = services.create_session(Principal.for_user(user))
    response = api.post(f"/api/v1/chat/sessions/{session.pk}/messages/", {"content": "Hallo"}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "no_model_configured"


def test_run_status_events_and_cancel(api, user, model, fake_openai):
    from apps.agent.runtime import run_agent

    p = Principal.for_user(user)
    session = services.create_session(p)
    run = say(p, session.pk, "Hallo")
    # never started: nothing to signal, the endpoint itself finalizes it and answers the status
    cancelled = api.post(f"/api/v1/chat/runs/{run.pk}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["run"]["status"] == "cancelled"
    assert run_agent(run.pk).status == "cancelled"  # the late worker job does nothing
    assert fake_openai.chat_requests == []
    detail = api.get(f"/api/v1/chat/runs/{run.pk}/").json()["run"]
    assert detail["status"] == "cancelled"
    assert detail["events"][-1]["payload"]["status"] == "cancelled"


def test_other_users_chats_are_invisible(api, model):
    other = UserFactory()
    p = Principal.for_user(other)
    session = services.create_session(p)
    run = say(p, session.pk, "privat")
    assert api.get(f"/api/v1/chat/sessions/{session.pk}/messages/").status_code == 404
    assert (
        api.post(f"/api/v1/chat/sessions/{session.pk}/messages/", {"content": "x"}, format="json").status_code
        == 404
    )
    assert api.get(f"/api/v1/chat/runs/{run.pk}/").status_code == 404
    assert api.post(f"/api/v1/chat/runs/{run.pk}/cancel/").status_code == 404
    assert api.get("/api/v1/chat/sessions/").json()["sessions"] == []


def test_anonymous_is_refused():
    assert APIClient().get("/api/v1/chat/sessions/").status_code == 401
