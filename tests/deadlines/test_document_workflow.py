"""The document workflow computes a Frist through apps.deadlines when the letter names its trigger
date and a rule (the model's own date is only the fallback)."""

from __future__ import annotations

import datetime as dt
import json
import zoneinfo

import pytest

from apps.calendar.models import CalendarEvent
from apps.documents import workflow
from apps.documents.models import WorkflowItem
from tests.documents.conftest import chat_model, isolated_signals, media_root, workflow_runs_inline  # noqa: F401
from tests.documents.factories import DocumentFactory

pytestmark = pytest.mark.django_db

BESCHEID = (
    "Finanzamt Musterstadt. Bescheid für 2024 über Einkommensteuer vom 29.01.2026. "
    "Gegen diesen Bescheid ist der Einspruch zulässig. Er ist binnen eines Monats nach Bekanntgabe "
    "dieses Bescheids einzulegen (§ 355 AO)."
)


def _answer(**deadline):
    return json.dumps(
        {
            "summary": "Einkommensteuerbescheid 2024.",
            "tasks": [],
            "deadline": {"title": "Einspruchsfrist ESt 2024", "criticality": "critical", **deadline},
        }
    )


def _run(anna, fake_openai, capture, answer):
    document = DocumentFactory(title="ESt-Bescheid 2024", extracted_text=BESCHEID, created_by=anna)
    fake_openai.reply(answer)
    with capture(execute=True):
        assert workflow.run_workflow(document.pk) == "done"
    return document


def test_the_due_date_is_computed_from_the_trigger_date_and_rule(
    anna,
    chat_model,  # noqa: F811 (the documents fixture, imported above)
    fake_openai,
    django_capture_on_commit_callbacks,
):
    # The model miscounts (28.02.2026 is a Saturday, and it ignored the posting fiction).
    answer = _answer(
        due="2026-02-28", legal_basis="§ 355 AO", trigger_date="2026-01-29", rule="einspruch_ao", posted=True
    )
    _run(anna, fake_openai, django_capture_on_commit_callbacks, answer)
    event = CalendarEvent.objects.get(source_origin="document")
    assert event.kind == "deadline" and event.all_day
    assert event.start.astimezone(zoneinfo.ZoneInfo(event.time_zone)).date() == dt.date(2026, 3, 2)
    assert event.trigger_date == dt.date(2026, 1, 29) and event.rule_code == "einspruch_ao"
    assert event.legal_basis == "§ 355 Abs. 1 AO"
    assert (
        "Bekanntgabe Mo 02.02.2026 (§ 122 Abs. 2 Nr. 1 AO) → Einspruchsfrist endet Mo 02.03.2026"
        in event.description
    )
    item = WorkflowItem.objects.get(kind="deadline")
    assert item.payload["due"] == "2026-03-02" and "Einspruchsfrist endet" in item.payload["explanation"]
    # The model was offered the catalog's codes.
    assert (
        "einspruch_ao = Einspruchsfrist (§ 355 Abs. 1 AO)"
        in fake_openai.chat_requests[0]["messages"][0]["content"]
    )


def test_an_unknown_rule_falls_back_to_the_models_date(
    anna,
    chat_model,  # noqa: F811 (the documents fixture, imported above)
    fake_openai,
    django_capture_on_commit_callbacks,
):
    answer = _answer(due="2026-03-02", legal_basis="§ 355 AO", trigger_date="2026-01-29", rule="erfunden")
    _run(anna, fake_openai, django_capture_on_commit_callbacks, answer)
    event = CalendarEvent.objects.get(source_origin="document")
    assert event.legal_basis == "§ 355 AO" and event.rule_code == "" and event.trigger_date is None


def test_a_deadline_with_a_rule_needs_no_due_date(
    anna,
    chat_model,  # noqa: F811 (the documents fixture, imported above)
    fake_openai,
    django_capture_on_commit_callbacks,
):
    answer = _answer(trigger_date="2026-01-29", rule="einspruch_ao", posted=False)
    _run(anna, fake_openai, django_capture_on_commit_callbacks, answer)
    item = WorkflowItem.objects.get(kind="deadline")
    assert item.payload["due"] == "2026-03-02"  # 29.01. + 1 month = So 01.03. → Mo 02.03.
