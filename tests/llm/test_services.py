"""Providers and models are written by `apps.llm.services` only: the admin pages (the provider
page's model rows included) answer a refusal on the form, write nothing, and only admins write."""

from __future__ import annotations

import typing

import pytest
from django.urls import reverse

from apps.agent.models import MoAPreset
from apps.core.errors import Conflict, Forbidden, InvalidInput, InvalidUrl
from apps.core.inputs import build
from apps.llm import services
from apps.llm.contracts import ModelSave, ProviderSave
from apps.llm.models import ModelConfig, Provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(db):
    return Provider.objects.create(
        name="Lokal", kind="ollama", base_url="http://localhost:11434/v1", api_key="k"
    )


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    client.cookies["django_language"] = "de"
    return client


def _model_form(provider, **more):
    return {
        "provider": provider.pk,
        "model_id": "llama3.1:8b",
        "context_window": "32000",
        "input_price_per_million": "0",
        "output_price_per_million": "0",
        "supports_tools": "on",
        **more,
    }


def _errors(response) -> str:
    assert response.status_code == 200  # the form again, not a 500 and not "saved"
    form = response.context["adminform"].form
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


def test_only_admins_write_providers_and_models(as_anna, as_boss, provider):
    with pytest.raises(Forbidden):
        services.save_provider(as_anna, build(ProviderSave, name="Neu"))
    with pytest.raises(Forbidden):
        services.save_model(as_anna, build(ModelSave, provider_id=provider.pk, model_id="m"))
    with pytest.raises(Forbidden):
        services.delete_provider(as_anna, provider.pk)
    assert Provider.objects.count() == 1 and not ModelConfig.objects.exists()
    saved = services.save_provider(as_boss, build(ProviderSave, name="Neu", kind="openai_compatible"))
    assert Provider.objects.get(pk=saved.pk).kind == "openai_compatible"


def test_bad_values_are_field_errors(as_boss, provider):
    with pytest.raises(InvalidUrl) as bad_url:
        build(ProviderSave, name="X", base_url="ftp://example.com")
    assert set(bad_url.value.field_errors) == {"base_url"}
    with pytest.raises(InvalidInput) as taken:
        services.save_provider(as_boss, build(ProviderSave, name="Lokal"))
    assert set(taken.value.field_errors) == {"name"}
    services.save_model(as_boss, build(ModelSave, provider_id=provider.pk, model_id="m1"))
    with pytest.raises(InvalidInput) as twice:
        services.save_model(as_boss, build(ModelSave, provider_id=provider.pk, model_id="m1"))
    assert set(twice.value.field_errors) == {"model_id"}
    with pytest.raises(InvalidInput):
        build(ModelSave, provider_id=provider.pk, model_id="m2", input_price_per_million="-1")
    assert list(ModelConfig.objects.values_list("model_id", flat=True)) == ["m1"]


def test_a_moa_aggregator_is_not_deleted_behind_the_preset(as_boss, provider):
    model = ModelConfig.objects.create(provider=provider, model_id="agg")
    MoAPreset.objects.create(slug="team", name="Team", aggregator=model)
    with pytest.raises(Conflict):
        services.delete_model(as_boss, model.pk)
    with pytest.raises(Conflict):
        services.delete_provider(as_boss, provider.pk)
    assert ModelConfig.objects.filter(pk=model.pk).exists()


def test_model_page_shows_a_taken_model_id_on_the_form(admin_client, provider):
    ModelConfig.objects.create(provider=provider, model_id="llama3.1:8b")
    response = admin_client.post(reverse("admin:llm_modelconfig_add"), _model_form(provider))
    assert "bereits" in _errors(response) or "schon" in _errors(response)
    assert ModelConfig.objects.count() == 1


def test_model_page_saves_and_deletes_through_the_service(admin_client, provider, monkeypatch):
    calls = []
    real_save, real_delete = services.save_model, services.delete_model
    monkeypatch.setattr(services, "save_model", lambda *a, **k: calls.append("save") or real_save(*a, **k))
    monkeypatch.setattr(
        services, "delete_model", lambda *a, **k: calls.append("delete") or real_delete(*a, **k)
    )
    response = admin_client.post(
        reverse("admin:llm_modelconfig_add"), _model_form(provider, display_name="Llama")
    )
    assert response.status_code == 302
    model = ModelConfig.objects.get(model_id="llama3.1:8b")
    assert model.display_name == "Llama" and model.context_window == 32000
    response = admin_client.post(reverse("admin:llm_modelconfig_delete", args=[model.pk]), {"post": "yes"})
    assert response.status_code == 302 and not ModelConfig.objects.exists()
    assert calls == ["save", "delete"]


def _provider_form(provider, rows, initial=0):
    data = {
        "name": provider.name,
        "kind": provider.kind,
        "base_url": provider.base_url,
        "api_key": "",
        "enabled": "on",
        "models-TOTAL_FORMS": str(len(rows)),
        "models-INITIAL_FORMS": str(initial),
    }
    for i, row in enumerate(rows):
        data.update({f"models-{i}-{k}": v for k, v in row.items()})
    return data


def test_provider_page_rows_go_through_the_service_and_a_refusal_keeps_everything(admin_client, provider):
    url = reverse("admin:llm_provider_change", args=[provider.pk])
    row = {"model_id": "qwen", "context_window": "8000", "supports_tools": "on"}
    # A context window of 0 passes the form but not the operation's contract: the service refuses
    # the row, and the provider's own change is rolled back with it.
    refused = _provider_form(provider, [row, {**row, "model_id": "leer", "context_window": "0"}])
    refused["name"] = "Umbenannt"
    response = admin_client.post(url, refused)
    assert _errors(response) == "leer: Kontextfenster (Tokens): Der Wert muss größer oder gleich 1 sein."
    assert Provider.objects.get(pk=provider.pk).name == "Lokal" and not ModelConfig.objects.exists()

    assert admin_client.post(url, _provider_form(provider, [row])).status_code == 302
    model = ModelConfig.objects.get(provider=provider)
    assert model.model_id == "qwen" and model.context_window == 8000
    gone = _provider_form(
        provider, [{**row, "id": model.pk, "provider": provider.pk, "DELETE": "on"}], initial=1
    )
    assert admin_client.post(url, gone).status_code == 302
    assert not ModelConfig.objects.exists()


def test_deleting_a_provider_goes_through_the_service(admin_client, provider):
    ModelConfig.objects.create(provider=provider, model_id="m")
    response = admin_client.post(reverse("admin:llm_provider_delete", args=[provider.pk]), {"post": "yes"})
    assert response.status_code == 302 and not Provider.objects.exists() and not ModelConfig.objects.exists()


def test_the_contract_takes_the_providers_kinds():
    assert set(typing.get_args(ProviderSave.model_fields["kind"].annotation)) == set(Provider.Kind.values)
