"""Secrets at rest, provider quirks, the env bootstrap and the provider admin."""

from __future__ import annotations

import pytest
from django.db import connection

from apps.core import crypto
from apps.core.services import get_setting
from apps.llm import client as llm
from apps.llm.models import ModelConfig, Provider
from apps.llm.setup import ensure_env_provider
from tests.agent.conftest import SECRET_KEY


def test_encrypt_round_trip_and_key_rotation(settings):
    from cryptography.fernet import Fernet

    old = settings.CLAPILOT_ENCRYPTION_KEYS[0]
    token = crypto.encrypt("geheim")
    assert token != "geheim" and crypto.decrypt(token) == "geheim"
    settings.CLAPILOT_ENCRYPTION_KEYS = [Fernet.generate_key().decode(), old]
    assert crypto.decrypt(token) == "geheim"  # old keys still decrypt
    settings.CLAPILOT_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(crypto.DecryptionError) as exc:
        crypto.decrypt(token)
    assert "geheim" not in str(exc.value)


@pytest.mark.django_db
def test_provider_key_is_encrypted_in_the_database(provider):
    with connection.cursor() as cur:
        cur.execute("SELECT api_key FROM agent_provider WHERE id = %s", [provider.pk])
        stored = cur.fetchone()[0]
    assert SECRET_KEY not in stored
    assert Provider.objects.get(pk=provider.pk).api_key == SECRET_KEY


@pytest.mark.django_db
def test_reasoning_models_get_max_completion_tokens_and_no_temperature(provider):
    plain = ModelConfig(provider=provider, model_id="gpt-4o-mini")
    reasoning = ModelConfig(provider=provider, model_id="gpt-5.1")
    p = llm.request_params(plain, [], [], stream=False)
    assert "temperature" in p and "max_tokens" in p and "max_completion_tokens" not in p
    r = llm.request_params(reasoning, [], [], stream=True)
    assert "temperature" not in r and "max_tokens" not in r and r["max_completion_tokens"] > 0
    assert r["stream_options"] == {"include_usage": True}


@pytest.mark.django_db
def test_non_streaming_call_and_model_list(model, fake_openai):
    fake_openai.tool_calls(("session_status", {}), usage=(7, 3))
    completion = llm.chat(model, [{"role": "user", "content": "x"}], [], stream=False)
    assert completion.tool_calls[0].name == "session_status" and completion.tool_calls[0].arguments == "{}"
    assert (completion.prompt_tokens, completion.completion_tokens) == (7, 3)
    assert "tools" not in fake_openai.chat_requests[0]  # empty tool list is not sent
    assert llm.list_models(model.provider) == ["fake-model"]


@pytest.mark.django_db
def test_env_creates_a_provider_once():
    env = {
        "OPENAI_API_KEY": "sk-env",
        "OPENAI_BASE_URL": "http://localhost:11434/v1",
        "OPENAI_MODEL": "qwen3",
    }
    provider = ensure_env_provider(env)
    assert provider.kind == Provider.Kind.OPENAI_COMPATIBLE and provider.api_key == "sk-env"
    config = provider.models.get()
    assert config.model_id == "qwen3" and get_setting("default_chat_model") == config.pk
    assert ensure_env_provider(env) is None and Provider.objects.count() == 1
    assert ensure_env_provider({}) is None


@pytest.mark.django_db
def test_env_without_key_does_nothing():
    assert ensure_env_provider({}) is None and not Provider.objects.exists()


@pytest.mark.django_db
def test_admin_never_shows_the_key_and_keeps_it_when_left_empty(client, admin_user, provider):
    client.force_login(admin_user)
    url = f"/admin/llm/provider/{provider.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200 and SECRET_KEY not in page.content.decode()
    data = {
        "name": "Fake",
        "kind": "openai_compatible",
        "base_url": provider.base_url,
        "api_key": "",
        "enabled": "on",
        "models-TOTAL_FORMS": "0",
        "models-INITIAL_FORMS": "0",
    }
    assert client.post(url, data).status_code == 302
    assert Provider.objects.get(pk=provider.pk).api_key == SECRET_KEY
    client.post(url, {**data, "api_key": "sk-new"})
    assert Provider.objects.get(pk=provider.pk).api_key == "sk-new"


@pytest.mark.django_db
def test_admin_run_and_session_pages_render(client, admin_user, model, fake_openai, user):
    from tests.agent.helpers import ask

    fake_openai.reply("ok")
    run = ask(user)
    client.force_login(admin_user)
    assert client.get(f"/admin/agent/run/{run.pk}/change/").status_code == 200
    assert client.get(f"/admin/agent/chatsession/{run.session_id}/change/").status_code == 200
    assert client.get("/admin/llm/modelconfig/").status_code == 200
