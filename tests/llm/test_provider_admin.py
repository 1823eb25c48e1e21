"""The provider admin: "Verbindung testen" (POST, admin only, never shows the key), the provider's
model list to pick a model id from (free text when unreachable), and widths that fit 1,366 px."""

from __future__ import annotations

import socket

import pytest
from django.urls import reverse
from django.utils import translation

from apps.llm.models import ModelConfig, Provider

SECRET = "sk-test-ADMIN-SECRET-9876543210"


@pytest.fixture
def fake_provider(db, fake_openai):
    return Provider.objects.create(
        name="Kanzlei-LLM",
        kind=Provider.Kind.OPENAI_COMPATIBLE,
        base_url=fake_openai.base_url,
        api_key=SECRET,
    )


@pytest.fixture
def dead_provider(db):
    with socket.socket() as sock:  # a port nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return Provider.objects.create(
        name="Weg",
        kind=Provider.Kind.OPENAI_COMPATIBLE,
        base_url=f"http://127.0.0.1:{port}/v1",
        api_key=SECRET,
    )


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    client.cookies["django_language"] = "de"
    return client


def _test(client, provider):
    url = reverse("admin:llm_provider_test_connection", args=[provider.pk])
    return client.post(url, follow=True, HTTP_ACCEPT_LANGUAGE="de")


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_test_connection_succeeds_and_names_the_model_count(admin_client, fake_provider, fake_openai):
    fake_openai.models = ["gpt-4o-mini", "llama3.1:8b", "mistral-small"]
    response = _test(admin_client, fake_provider)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("admin:llm_provider_change", args=[fake_provider.pk])
    assert _messages(response) == [
        "Verbindung zu „Kanzlei-LLM“ funktioniert: der Anbieter bietet 3 Modelle an."
    ]
    assert SECRET not in response.content.decode()


def test_test_connection_with_a_rejected_key_never_shows_the_key(admin_client, fake_provider, fake_openai):
    # Providers echo (parts of) the key in their 401 body: none of it may reach the page.
    fake_openai.models_error = (401, f"Incorrect API key provided: {SECRET}")
    response = _test(admin_client, fake_provider)
    (message,) = _messages(response)
    assert "hat den API-Schlüssel abgelehnt" in message and "Kanzlei-LLM" in message
    body = response.content.decode()
    assert SECRET not in body and SECRET[-8:] not in body and "Incorrect API key" not in body


def test_test_connection_to_an_unreachable_provider_says_so(admin_client, dead_provider):
    response = _test(admin_client, dead_provider)
    assert _messages(response) == ["Der Modellanbieter „Weg“ ist nicht erreichbar."]
    assert SECRET not in response.content.decode()


def test_test_connection_is_post_only_and_for_admins(admin_client, fake_provider, fake_openai, user):
    from django.test import Client

    client = Client()
    url = reverse("admin:llm_provider_test_connection", args=[fake_provider.pk])
    assert admin_client.get(url).status_code == 405
    client.force_login(user)  # a colleague without the admin role: to the admin login, nothing called
    response = client.post(url)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    client.logout()
    assert "/admin/login/" in client.post(url)["Location"]
    assert admin_client.post(reverse("admin:llm_provider_test_connection", args=[99999])).status_code == 404


def test_test_connection_needs_the_csrf_token(admin_user, fake_provider):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(admin_user)
    url = reverse("admin:llm_provider_test_connection", args=[fake_provider.pk])
    assert strict.post(url).status_code == 403
    page = strict.get(reverse("admin:llm_provider_change", args=[fake_provider.pk]))
    token = page.context["csrf_token"]
    assert strict.post(url, {"csrfmiddlewaretoken": str(token)}).status_code == 302


def test_the_provider_page_has_the_button_and_offers_its_models(admin_client, fake_provider, fake_openai):
    fake_openai.models = ["gpt-4o-mini", "llama3.1:8b"]
    ModelConfig.objects.create(provider=fake_provider, model_id="gpt-4o-mini")
    page = admin_client.get(reverse("admin:llm_provider_change", args=[fake_provider.pk])).content.decode()
    assert "Verbindung testen" in page
    assert reverse("admin:llm_provider_test_connection", args=[fake_provider.pk]) in page
    assert '<option value="llama3.1:8b">' in page and 'list="provider-model-ids"' in page
    assert SECRET not in page


def test_adding_a_model_offers_the_providers_list(admin_client, fake_provider, fake_openai):
    fake_openai.models = ["qwen2.5:14b"]
    url = reverse("admin:llm_modelconfig_add") + f"?provider={fake_provider.pk}"
    page = admin_client.get(url).content.decode()
    assert '<option value="qwen2.5:14b">' in page
    # Free text stays possible: an id the provider does not list is saved as typed.
    response = admin_client.post(
        url,
        {
            "provider": fake_provider.pk,
            "model_id": "mein-eigenes-modell",
            "context_window": 32000,
            "input_price_per_million": "0",
            "output_price_per_million": "0",
            "supports_tools": "on",
        },
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert ModelConfig.objects.filter(provider=fake_provider, model_id="mein-eigenes-modell").exists()


def test_unreachable_provider_falls_back_to_free_text(admin_client, dead_provider):
    url = reverse("admin:llm_modelconfig_add") + f"?provider={dead_provider.pk}"
    page = admin_client.get(url).content.decode()
    assert "Die Modellliste konnte nicht abgerufen werden" in page
    assert (
        "Modell-ID von Hand eingeben" in page
        and "<option value=" not in page.split("provider-model-ids")[1][:40]
    )
    assert SECRET not in page


def test_model_list_is_cached_and_follows_a_changed_base_url(fake_provider, fake_openai, dead_provider):
    from apps.llm.connection import offered_model_ids

    with translation.override("de"):
        assert offered_model_ids(fake_provider) == (["fake-model"], "")
        fake_openai.models = ["other"]
        assert offered_model_ids(fake_provider)[0] == ["fake-model"]  # cached
        fake_provider.base_url = dead_provider.base_url
        models, note = offered_model_ids(fake_provider)
    assert models == [] and "nicht erreichbar" in note
