"""Fixtures of the learning tests: models on the scripted OpenAI-compatible server, one for the
chat, one chosen for extraction, one for the curator (each answers only its own script)."""

from __future__ import annotations

import pytest

from apps.core.inputs import build
from apps.learning import services
from apps.learning.contracts import LearningProposal
from apps.learning.models import LearningObject


@pytest.fixture
def provider(db, fake_openai):
    from apps.llm.models import Provider

    return Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="sk-test"
    )


def _model(provider, model_id):
    from apps.llm.models import ModelConfig

    return ModelConfig.objects.create(provider=provider, model_id=model_id)


@pytest.fixture
def chat_model(provider):
    from apps.core.services import set_setting

    model = _model(provider, "chat-model")
    set_setting("default_chat_model", model.pk)
    return model


@pytest.fixture
def extraction_model(provider):
    from apps.learning.models import LearningSettings

    model = _model(provider, "extractor")
    config = LearningSettings.current()
    config.extraction_model = model
    config.save()
    return model


@pytest.fixture
def curator_model(provider):
    from apps.learning.models import LearningSettings

    model = _model(provider, "curator")
    config = LearningSettings.current()
    config.curator_model = model
    config.save()
    return model


def fact(text, *, subject="", quote=None, confidence=0.95, **kw) -> LearningObject:
    """A fact as the extraction would propose it (no run)."""
    obj, _what = services.propose(
        build(
            LearningProposal,
            kind="durable_fact",
            text=text,
            subject=subject,
            quote=quote or text,
            run_id=None,
            confidence=confidence,
            **kw,
        )
    )
    return obj
