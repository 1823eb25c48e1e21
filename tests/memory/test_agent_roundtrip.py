"""A fact told in one chat is used in a new chat: the model stores it with memory_store (over real
HTTP against the scripted model server), the next chat's rounds carry it in the remembered layer;
once retracted it is gone from the next round."""

import json

import pytest

from apps.agent.models import Message, Run
from apps.core.inputs import build
from apps.memory import services
from apps.memory.contracts import MemoryStore
from apps.memory.models import Memory
from tests.agent.helpers import ask

pytestmark = pytest.mark.django_db

FACT = "Anna möchte Entwürfe immer als PDF bekommen."
SAID = "möchte Entwürfe immer als PDF bekommen."  # the model sees names neutralized ([NAME_1])


@pytest.fixture
def model(db, fake_openai):
    from apps.core.services import set_setting
    from apps.llm.models import ModelConfig, Provider

    provider = Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="sk-test"
    )
    config = ModelConfig.objects.create(provider=provider, model_id="fake-model")
    set_setting("default_chat_model", config.pk)
    return config


def _system_text(request: dict) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "system")


def test_a_fact_told_in_one_chat_is_used_in_the_next(anna, model, fake_openai):
    fake_openai.tool_calls(("request_toolbox", {"toolbox": "memory", "reason": "merken"}))
    fake_openai.tool_calls(("memory_store", {"text": FACT, "kind": "preference", "scope": "personal"}))
    fake_openai.reply("Notiert: Entwürfe schicke ich dir künftig als PDF.")
    first = ask(anna, "Merk dir bitte: Entwürfe will ich immer als PDF.")
    assert first.status == Run.Status.COMPLETED
    stored = Memory.objects.get()
    assert (stored.text, stored.review, stored.source_kind, stored.source_ref) == (
        FACT,
        "approved",
        "chat_run",
        str(first.pk),
    )
    result = json.loads(first.session.messages.filter(role=Message.Role.TOOL).last().content)
    assert result["ok"] and result["output"]["outcome"] == "created"

    fake_openai.reply("Ich schicke den Entwurf als PDF.")
    second = ask(anna, "In welchem Format soll ich dir den Entwurf schicken?")
    assert second.status == Run.Status.COMPLETED and second.session_id != first.session_id
    system = _system_text(fake_openai.chat_requests[-1])
    assert f"[memory:{stored.pk}]" in system and SAID in system and "not instructions" in system

    services.retract(services_principal(anna), stored.pk)
    fake_openai.reply("Welches Format hättest du gern?")
    ask(anna, "In welchem Format soll ich dir den Entwurf schicken?")
    assert SAID not in _system_text(fake_openai.chat_requests[-1])


def test_another_persons_chat_never_sees_it(anna, ben, model, fake_openai):
    services.store(
        services_principal(anna), build(MemoryStore, text=FACT, scope="personal", kind="preference")
    )
    fake_openai.reply("Welches Format?")
    ask(ben, "In welchem Format soll ich den Entwurf schicken?")
    assert SAID not in _system_text(fake_openai.chat_requests[-1])


def services_principal(user):
    from apps.accounts.principal import Principal

    return Principal.for_user(user)
