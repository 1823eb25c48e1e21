"""In Chromium: the provider admin page fits 1,366 px with its model rows, "Verbindung testen"
answers on the page, and the model-id input offers the provider's models."""

import pytest

from apps.llm.models import ModelConfig, Provider
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e


def test_provider_page_fits_and_tests_the_connection(server, page, fake_openai, transactional_db):
    admin = UserFactory(email="chefin@kanzlei.example", role="admin", language="de")
    fake_openai.models = ["gpt-4o-mini", "llama3.1:8b", "qwen2.5:14b"]
    provider = Provider.objects.create(
        name="Kanzlei-LLM",
        kind=Provider.Kind.OPENAI_COMPATIBLE,
        base_url=fake_openai.base_url,
        api_key="sk-e2e-SECRET-000",
    )
    for model_id in ("gpt-4o-mini", "llama3.1:8b"):
        ModelConfig.objects.create(
            provider=provider,
            model_id=model_id,
            display_name=f"{model_id} (Kanzlei)",
            probe_error="no_tool_call: Das Modell hat geantwortet, aber das Testwerkzeug nicht aufgerufen.",
        )
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, server, admin.email)
    page.goto(f"{server}/admin/llm/provider/{provider.pk}/change/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1366, width

    options = page.evaluate(
        "Array.from(document.querySelectorAll('#provider-model-ids option')).map(o => o.value)"
    )
    assert options == ["gpt-4o-mini", "llama3.1:8b", "qwen2.5:14b"]
    assert page.get_attribute("#id_models-0-model_id", "list") == "provider-model-ids"

    page.get_by_role("button", name="Verbindung testen").click()
    page.wait_for_load_state()
    message = page.locator(".messagelist").inner_text()
    assert "Verbindung zu „Kanzlei-LLM“ funktioniert" in message and "3 Modelle" in message
    assert "sk-e2e-SECRET" not in page.content()
