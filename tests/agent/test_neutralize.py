"""The neutralization gate: the scripted provider never sees a client's real name, the user and
the tools only ever see real values."""

from __future__ import annotations

import json

import pytest

from apps.agent.models import Message, Run
from apps.clients.models import Client
from apps.core.services import set_setting
from apps.llm.neutralize import Gate
from apps.tasks.models import Task
from tests.agent.helpers import ask, events

pytestmark = pytest.mark.django_db

NAME = "Hubertus Wendeberg"
MAIL = "h.wendeberg@example.de"


@pytest.fixture
def client_row(db):
    return Client.objects.create(
        name=NAME, kind="person", client_number="K-4711", email=MAIL, tax_number="21/815/08150"
    )


def test_patterns_are_replaced_and_restored():
    gate = Gate([("MANDANT", "Bäckerei Sonnenschein GmbH"), ("MANDANT~", "Sonnenschein")])
    text = (
        "Bäckerei Sonnenschein GmbH (Herr Sonnenschein, sonnig@baeckerei.de, +49 30 1234567, "
        "0171/9876543) IBAN DE89 3704 0044 0532 0130 00, Steuer-ID 12345678901, StNr 21/815/08150. "
        "Betrag 1.234,56 EUR am 15.01.2025, Aktenzeichen 2024-17. Es ist sonnenschein."
    )
    out = gate.text(text)
    for real in ("Sonnenschein GmbH", "sonnig@", "1234567", "9876543", "DE89", "12345678901", "21/815/08150"):
        assert real not in out
    assert "[MANDANT_1]" in out and "Herr [MANDANT_2]" in out and "[EMAIL_1]" in out
    assert "[IBAN_1]" in out and "[STEUER_ID_1]" in out and "[STEUERNUMMER_1]" in out
    assert out.count("[TELEFON_") == 2
    # ordinary numbers and the lower-case word stay
    assert "1.234,56 EUR am 15.01.2025, Aktenzeichen 2024-17" in out and "ist sonnenschein" in out
    assert gate.restore(out) == text
    assert gate.text("noch einmal sonnig@baeckerei.de") == "noch einmal [EMAIL_1]"  # stable per gate


def test_stream_restorer_holds_back_a_cut_placeholder():
    gate = Gate([("MANDANT", NAME)])
    gate.text(NAME)
    seen: list[str] = []
    sink = gate.stream(seen.append)
    for piece in ("Hallo [MAN", "DANT_", "1], wie", " geht's? [x"):
        sink(piece)
    sink.close()
    assert "".join(seen) == f"Hallo {NAME}, wie geht's? [x"
    assert all("[MAN" not in s for s in seen)


def test_tool_arguments_are_restored_as_json():
    gate = Gate([("MANDANT", 'Anna "Anni" Adler')])
    gate.text('Anna "Anni" Adler')
    restored = gate.restore_arguments('{"title": "Anruf [MANDANT_1]", "n": 3}')
    assert json.loads(restored) == {"title": 'Anruf Anna "Anni" Adler', "n": 3}


def test_round_trip_provider_never_sees_the_name(user, model, fake_openai, client_row, statuses, board):
    fake_openai.forbid("Wendeberg", MAIL)
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "Rückruf [MANDANT_1] ([EMAIL_1])"}))
    fake_openai.reply("Erledigt: Aufgabe für [MANDANT_1] angelegt.")
    run = ask(user, f"Leg eine Aufgabe an: Rückruf {NAME}, Mail {MAIL}")

    assert fake_openai.violations == []
    assert run.status == Run.Status.COMPLETED, run.error_code
    # the tool received the real values
    assert Task.objects.get().title == f"Rückruf {NAME} ({MAIL})"
    # the user sees the real name, streamed and final
    streamed = "".join(p["text"] for k, p in events(run) if k == "token")
    assert streamed == f"Erledigt: Aufgabe für {NAME} angelegt."
    assert run.session.messages.filter(role=Message.Role.ASSISTANT).last().content == streamed
    # what the provider saw: placeholders only, stable across both rounds
    sent = json.dumps(fake_openai.chat_requests, ensure_ascii=False)
    assert "Wendeberg" not in sent and MAIL not in sent
    first, second = (r["messages"] for r in fake_openai.chat_requests)
    assert first[-1]["content"] == "Leg eine Aufgabe an: Rückruf [MANDANT_1], Mail [EMAIL_1]"
    assert "[MANDANT_1]" in second[-1]["content"]  # the tool result, neutralized again


def test_setting_off_sends_real_values(user, model, fake_openai, client_row):
    set_setting("agent_neutralization", "off")
    fake_openai.reply("ok")
    ask(user, f"Wer ist {NAME}?")
    assert fake_openai.chat_requests[0]["messages"][-1]["content"] == f"Wer ist {NAME}?"


def test_a_run_that_requires_it_is_neutralized_whatever_the_setting(user, model, fake_openai, client_row):
    set_setting("agent_neutralization", "off")
    fake_openai.forbid("Wendeberg")
    fake_openai.reply("ok")
    run = ask(user, f"Wer ist {NAME}?", require_neutralization=True)
    assert run.status == Run.Status.COMPLETED and fake_openai.violations == []


def test_staff_names_and_phone_numbers_are_neutralized(user, model, fake_openai):
    user.full_name = "Gerlinde Quastenberg"
    user.save()
    fake_openai.forbid("Quastenberg", "0221 4711 0815")
    fake_openai.reply("Ich rufe [PERSON_1] unter [TELEFON_1] an.")
    run = ask(user, "Ruf Gerlinde Quastenberg an: 0221 4711 0815")
    assert fake_openai.violations == []
    assert run.session.messages.last().content == "Ich rufe Gerlinde Quastenberg unter 0221 4711 0815 an."
