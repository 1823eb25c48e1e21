"""Cancellation through a real Celery worker: the stop reaches the running tool, the worker's
finalizer writes `cancelled`, and the endpoint answers only after that."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Run
from apps.apikeys.services import issue_device_token
from tests.agent import slow_tools
from tests.workers import in_process_worker


@pytest.mark.django_db(transaction=True)
def test_stop_button_path_through_the_worker(user, model, fake_openai, settings):
    settings.CLAPILOT_AGENT_CANCEL_POLL = 0.05
    probe = slow_tools.register()
    try:
        fake_openai.tool_calls(("test_slow_cooperative", {"seconds": 20})).reply("nie gesendet")
        _, token = issue_device_token(user, "Test")
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        session = services.create_session(Principal.for_user(user))
        with in_process_worker():
            posted = api.post(
                f"/api/v1/chat/sessions/{session.pk}/messages/", {"content": "Los"}, format="json"
            )
            run_id = posted.json()["run_id"]
            assert probe.started.wait(30), "the worker never ran the tool"
            response = api.post(f"/api/v1/chat/runs/{run_id}/cancel/")
        assert response.status_code == 200 and response.json()["run"]["status"] == "cancelled"
        assert probe.saw_cancel
        run = Run.objects.get(pk=run_id)
        assert run.status == Run.Status.CANCELLED and run.started_at is not None
        assert len(fake_openai.chat_requests) == 1
    finally:
        probe.finished.wait(10)
        slow_tools.unregister()
