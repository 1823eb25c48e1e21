"""Fixtures of the agent tests: the scripted model server and a provider pointing at it."""

from __future__ import annotations

import pytest

SECRET_KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture
def provider(db, fake_openai):
    from apps.llm.models import Provider

    return Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key=SECRET_KEY
    )


@pytest.fixture
def model(provider):
    from decimal import Decimal

    from apps.core.services import set_setting
    from apps.llm.models import ModelConfig

    config = ModelConfig.objects.create(
        provider=provider,
        model_id="fake-model",
        input_price_per_million=Decimal("1000"),
        output_price_per_million=Decimal("2000"),
    )
    set_setting("default_chat_model", config.pk)
    return config


@pytest.fixture
def preset(model):
    """A Mixture-of-Agents preset "rat": two reference models and an aggregator on the fake server."""
    from decimal import Decimal

    from apps.agent.models import MoAPreset
    from apps.llm.models import ModelConfig

    refs = [
        ModelConfig.objects.create(
            provider=model.provider, model_id=f"ref-{x}", input_price_per_million=Decimal("1000")
        )
        for x in "ab"
    ]
    agg = ModelConfig.objects.create(provider=model.provider, model_id="agg")
    p = MoAPreset.objects.create(slug="rat", name="Rat der Modelle", aggregator=agg, prompt="Fasse zusammen.")
    p.reference_models.set(refs)
    return p


@pytest.fixture
def board(db):
    from apps.tasks.models import Board

    return Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)


from tests.mutations.conftest import session_cookie  # noqa: E402, F401
