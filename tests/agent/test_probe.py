"""Capability probe: one tiny request through `llm.chat`, its outcome on the model, the job and
the admin actions that queue it."""

from __future__ import annotations

import pytest

from apps.agent import services
from apps.llm.jobs import probe_models_job
from apps.llm.models import ModelConfig
from apps.llm.probe import probe_model
from apps.llm.setup import ensure_env_provider
from tests.agent.conftest import SECRET_KEY


@pytest.fixture
def eager_probe(monkeypatch):
    """The job runs in this thread instead of going to the broker; answers the queued id lists."""
    queued: list[list[int]] = []

    def delay(ids):
        queued.append(list(ids))
        return probe_models_job(ids)

    monkeypatch.setattr(probe_models_job, "delay", delay)
    return queued


@pytest.mark.django_db
def test_probe_success_records_tools_support(model, fake_openai):
    model.supports_tools = False
    model.save()
    fake_openai.tool_calls(("ping", {}))
    probe_model(model)
    model.refresh_from_db()
    assert not model.probe_failed and model.supports_tools and model.probed_at is not None
    assert model.probe_error == ""
    sent = fake_openai.chat_requests[0]
    assert sent["model"] == "fake-model" and sent["stream"] is False
    assert [t["function"]["name"] for t in sent["tools"]] == ["ping"]


@pytest.mark.django_db
def test_probe_401_fails_the_model_with_a_code_and_no_secret(model, fake_openai):
    fake_openai.error(401, f"Incorrect API key provided: {SECRET_KEY}")
    probe_model(model)
    model.refresh_from_db()
    assert model.probe_failed and model.probed_at is not None
    assert model.probe_error.startswith("provider_auth:")
    assert SECRET_KEY not in model.probe_error and "sk-" not in model.probe_error
    assert model not in services.offered_models()


@pytest.mark.django_db
def test_probe_unknown_model_fails_with_model_not_found(model, fake_openai):
    fake_openai.error(404, "The model `fake-model` does not exist")
    probe_model(model)
    model.refresh_from_db()
    assert model.probe_failed and model.probe_error.startswith("model_not_found:")


@pytest.mark.django_db
def test_model_refusing_tools_answers_without_them_and_loses_tools_support(model, fake_openai):
    fake_openai.error(400, "fake-model does not support tools").reply("pong")
    probe_model(model)
    model.refresh_from_db()
    assert not model.probe_failed and not model.supports_tools
    assert model.probe_error.startswith("tools_unsupported:")
    first, second = fake_openai.chat_requests
    assert "tools" in first and "tools" not in second
    assert model in services.offered_models()


@pytest.mark.django_db
def test_model_answering_in_text_instead_of_calling_the_tool(model, fake_openai):
    fake_openai.reply("pong")
    probe_model(model)
    model.refresh_from_db()
    assert not model.probe_failed and not model.supports_tools
    assert model.probe_error.startswith("no_tool_call:")


@pytest.mark.django_db
def test_a_successful_probe_clears_an_earlier_failure(model, fake_openai):
    model.probe_failed, model.probe_error = True, "provider_auth: old"
    model.save()
    fake_openai.tool_calls(("ping", {}))
    probe_model(model)
    model.refresh_from_db()
    assert not model.probe_failed and model.probe_error == ""


@pytest.mark.django_db
def test_admin_model_action_queues_the_probe(
    client, admin_user, model, fake_openai, eager_probe, django_capture_on_commit_callbacks
):
    fake_openai.error(401, "bad key")
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/llm/modelconfig/",
            {"action": "probe_capability", "_selected_action": [model.pk]},
            follow=True,
        )
    assert response.status_code == 200 and eager_probe == [[model.pk]]
    model.refresh_from_db()
    assert model.probe_failed
    page = client.get("/admin/llm/modelconfig/").content.decode()
    assert "provider_auth" in page  # the admin shows why
    assert client.get(f"/admin/llm/modelconfig/{model.pk}/change/").status_code == 200


@pytest.mark.django_db
def test_admin_provider_action_probes_all_its_models(
    client, admin_user, model, provider, fake_openai, eager_probe, django_capture_on_commit_callbacks
):
    other = ModelConfig.objects.create(provider=provider, model_id="other-model")
    fake_openai.tool_calls(("ping", {}), model="fake-model").reply("pong", model="other-model")
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/admin/llm/provider/", {"action": "probe_capability", "_selected_action": [provider.pk]})
    assert eager_probe == [sorted([model.pk, other.pk])]
    model.refresh_from_db()
    other.refresh_from_db()
    assert model.supports_tools and not other.supports_tools
    assert model.probed_at and other.probed_at
    assert client.get(f"/admin/llm/provider/{provider.pk}/change/").status_code == 200


@pytest.mark.django_db
def test_env_provider_queues_a_probe_after_commit(
    eager_probe, django_capture_on_commit_callbacks, fake_openai
):
    fake_openai.tool_calls(("ping", {}))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        provider = ensure_env_provider({"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": fake_openai.base_url})
    assert len(callbacks) == 1
    config = provider.models.get()
    assert eager_probe == [[config.pk]]
    config.refresh_from_db()
    assert config.probed_at is not None and not config.probe_failed


@pytest.mark.django_db
def test_a_broker_failure_never_breaks_the_caller(monkeypatch, django_capture_on_commit_callbacks, model):
    from apps.llm.probe import enqueue_probe

    tried = []

    def down(ids):
        tried.append(ids)
        raise ConnectionError("broker down")

    monkeypatch.setattr(probe_models_job, "delay", down)
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_probe([model.pk])  # logged, not raised
    assert tried == [[model.pk]]
