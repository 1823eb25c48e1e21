"""Progressive summarization near the context window, and Mixture of Agents fan-out."""

from __future__ import annotations

from decimal import Decimal

import pytest

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Message, Run
from apps.agent.runtime import run_agent
from apps.core.services import set_setting
from apps.llm.models import ModelConfig
from tests.agent.helpers import say

pytestmark = pytest.mark.django_db


def _turn(user, session_id, text, **kwargs) -> Run:
    return run_agent(say(Principal.for_user(user), session_id, text, **kwargs).pk)


# --- summarization ----------------------------------------------------------------------------
@pytest.fixture
def small_model(model):
    model.context_window = 1000
    model.supports_tools = False
    model.save()
    summary_model = ModelConfig.objects.create(provider=model.provider, model_id="sum-model")
    set_setting("summarization_model", summary_model.pk)
    return model


def test_older_turns_are_summarized_once_and_replaced(user, small_model, fake_openai):
    session = services.create_session(Principal.for_user(user))
    fake_openai.reply("Erste Antwort " + "a" * 700).reply("Zweite Antwort " + "b" * 700)
    _turn(user, session.pk, "Erste Frage " + "x" * 700)
    _turn(user, session.pk, "Zweite Frage " + "y" * 700)
    assert fake_openai.requests_for("sum-model") == []

    fake_openai.reply("ZUSAMMENFASSUNG: zwei Fragen zu x und y.", model="sum-model")
    fake_openai.reply("Dritte Antwort").reply("Vierte Antwort")
    run = _turn(user, session.pk, "Und jetzt?")
    _turn(user, session.pk, "Und danach?")

    assert run.status == Run.Status.COMPLETED
    summary_calls = fake_openai.requests_for("sum-model")
    assert len(summary_calls) == 1  # persisted: not recomputed on the next turn
    assert "Erste Frage" in summary_calls[0]["messages"][-1]["content"]
    main = [r for r in fake_openai.chat_requests if r["model"] == "fake-model"][2]["messages"]
    assert main[1] == {
        "role": "system",
        "content": "Summary of the earlier conversation:\nZUSAMMENFASSUNG: zwei Fragen zu x und y.",
    }
    sent = " ".join(str(m["content"]) for m in main)
    assert "Erste Frage" not in sent and main[-1] == {"role": "user", "content": "Und jetzt?"}
    stored = session.messages.get(role=Message.Role.SYSTEM)
    assert stored.metadata["summary"] is True and stored.metadata["model"].endswith("sum-model")
    assert run.events.filter(kind="summary").exists()
    # the page and the API keep the full transcript
    assert session.messages.filter(content__startswith="Erste Frage").exists()


def test_summarization_falls_back_to_the_chat_model(user, small_model, fake_openai):
    from apps.core.models import InstanceSetting

    InstanceSetting.objects.filter(key="summarization_model").delete()
    session = services.create_session(Principal.for_user(user))
    fake_openai.reply("A " + "a" * 3000)
    _turn(user, session.pk, "Frage " + "x" * 2000)
    fake_openai.reply("Kurzfassung").reply("Antwort")
    run = _turn(user, session.pk, "Weiter")
    assert run.status == Run.Status.COMPLETED
    assert fake_openai.chat_requests[1]["stream"] is False  # the summary call, with the chat model
    assert fake_openai.chat_requests[1]["model"] == "fake-model"


# --- Mixture of Agents ------------------------------------------------------------------------


def test_moa_fans_out_once_per_reference_and_the_aggregator_answers(
    user, preset, fake_openai, statuses, board
):
    fake_openai.reply("Antwort A", model="ref-a", usage=(100, 0)).reply(
        "Antwort B", model="ref-b", usage=(100, 0)
    )
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "Aus dem Rat"}), model="agg")
    fake_openai.reply("Endgültige Antwort", model="agg")
    session = services.create_session(Principal.for_user(user))
    run = _turn(user, session.pk, "Was tun?", model_id="moa/rat")

    assert run.status == Run.Status.COMPLETED and run.model_label == "moa/rat"
    assert len(fake_openai.requests_for("ref-a")) == 1 and len(fake_openai.requests_for("ref-b")) == 1
    agg_calls = fake_openai.requests_for("agg")
    assert len(agg_calls) == 2  # a tool round, then the answer; references are not asked again
    for ref in ("ref-a", "ref-b"):
        sent = fake_openai.requests_for(ref)[0]
        assert sent["stream"] is False and "tools" not in sent
        assert sent["messages"][-1] == {"role": "user", "content": "Was tun?"}
    instruction = agg_calls[0]["messages"][-1]
    assert instruction["role"] == "system" and instruction["content"].startswith("Fasse zusammen.")
    assert "Antwort A" in instruction["content"] and "Antwort B" in instruction["content"]
    assert agg_calls[0]["stream"] is True and agg_calls[0]["tools"]
    assert run.session.messages.last().content == "Endgültige Antwort"
    assert run.cost == Decimal("0.2")  # 2 × 100 tokens at the reference models' price
    assert run.prompt_tokens == 200 + 2 * 10


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_moa_is_offered_as_a_virtual_model(user, preset, web):
    assert ("moa/rat", "Rat der Modelle (moa/rat)") in services.model_choices()
    page = web.get(f"/chat/{services.create_session(Principal.for_user(user)).pk}/")
    assert 'value="moa/rat"' in page.content.decode()


def test_one_failed_reference_is_skipped(user, preset, fake_openai):
    fake_openai.error(500, model="ref-a").reply("Antwort B", model="ref-b")
    fake_openai.reply("Trotzdem", model="agg")
    session = services.create_session(Principal.for_user(user))
    run = _turn(user, session.pk, "Frage", model_id="moa/rat")
    assert run.status == Run.Status.COMPLETED
    content = fake_openai.requests_for("agg")[0]["messages"][-1]["content"]
    assert "Antwort B" in content and "ref-a" not in content


def test_unknown_moa_preset_is_refused(user, preset):
    from apps.agent.errors import InvalidChatInput

    session = services.create_session(Principal.for_user(user))
    with pytest.raises(InvalidChatInput):
        say(Principal.for_user(user), session.pk, "x", model_id="moa/gibtsnicht")
