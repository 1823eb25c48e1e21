"""Issue 14.5: tool steps with human, localized labels; links to the records a run created or
changed; the chat title generated after the first answer (one model call, through the gate) with
the question's first words as its fallback."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from apps.accounts.principal import Principal
from apps.agent import services, titles
from apps.agent.contracts import ChatSessionRename
from apps.agent.labels import tool_label
from apps.agent.models import ChatSession, Message, Run
from apps.clients.models import Client
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.tasks.models import Board, Task
from tests.agent.helpers import ask, events, say

pytestmark = pytest.mark.django_db


# --- labels ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "de", "en"),
    [
        ("aufgaben_create_task", "Aufgabe anlegen", "Create task"),
        ("aufgaben_list_tasks", "Aufgaben auflisten", "List tasks"),
        ("mandanten_search", "Mandanten durchsuchen", "Search clients"),
        ("cases_create", "Akte anlegen", "Create case"),
        ("calendar_create_event", "Termin anlegen", "Create appointment"),
        ("agent_todo_update", "Plan aktualisieren", "Update the plan"),  # declared on the tool
    ],
)
def test_tool_labels_are_localized(name, de, en):
    with translation.override("de"):
        assert tool_label(name) == de
    with translation.override("en"):
        assert tool_label(name) == en


def test_an_unknown_tool_name_still_reads_as_words():
    with translation.override("en"):
        assert tool_label("fleet_destroy") == "Tool: fleet destroy"


def test_a_declared_label_wins(monkeypatch):
    from dataclasses import replace

    from apps.tools import registry

    original = registry.get("aufgaben_create_task")
    monkeypatch.setitem(registry._REGISTRY, original.name, replace(original, label="Neue Aufgabe"))
    assert tool_label("aufgaben_create_task") == "Neue Aufgabe"


# --- links and labels of a run --------------------------------------------------------------
def test_run_events_and_page_carry_labels_and_links(web, anna, model, fake_openai, statuses):
    board = Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "Belege anfordern", "board_id": board.pk}))
    fake_openai.reply("Angelegt.")
    run = ask(anna, "Leg eine Aufgabe an")
    assert run.status == Run.Status.COMPLETED, run.error_code
    task = Task.objects.get()

    started = next(p for k, p in events(run) if k == "tool_started")
    finished = next(p for k, p in events(run) if k == "tool_finished")
    assert started["label"] == finished["label"] == "Aufgabe anlegen"  # Anna reads German
    # A shared board's upsert reaches everybody through the stream, so the direct result drops
    # it; the link comes from the run's mutation event.
    assert finished["ui_actions"] == []
    assert finished["links"] == [
        {"url": f"/aufgaben/{task.pk}/", "title": "Belege anfordern", "list": "tasks"}
    ]

    body = web.get(reverse("chat:session", args=[run.session_id])).content.decode()
    assert ">Aufgabe anlegen</li>" in body
    assert f'<a href="/aufgaben/{task.pk}/">Belege anfordern</a>' in body


def test_links_skip_foreign_urls_and_removals():
    from apps.agent.links import links_from

    found = links_from(
        [
            {
                "type": "upsert",
                "list": "x",
                "record_id": "1",
                "record": {"url": "https://evil.example/", "title": "a"},
            },
            {
                "type": "upsert",
                "list": "x",
                "record_id": "2",
                "record": {"url": "//evil.example/", "title": "b"},
            },
            {"type": "remove", "list": "x", "record_id": "3"},
            {
                "type": "upsert",
                "list": "x",
                "record_id": "4",
                "record": {"url": "/mandanten/4/", "name": "Kunz"},
            },
            {
                "type": "upsert",
                "list": "x",
                "record_id": "4",
                "record": {"url": "/mandanten/4/", "name": "Kunz"},
            },
            "junk",
        ]
    )
    assert found == [{"url": "/mandanten/4/", "title": "Kunz", "list": "x"}]


def test_read_only_runs_do_not_look_for_mutation_events(anna, model, fake_openai, monkeypatch):
    def no_lookup():
        raise AssertionError("a read-only batch looked for mutation events")

    monkeypatch.setattr("apps.agent.links.event_cursor", no_lookup)
    fake_openai.tool_calls(("aufgaben_list_boards", {}))
    fake_openai.reply("Keine.")
    run = ask(anna, "Welche Boards?")
    assert run.status == Run.Status.COMPLETED, run.error_code
    finished = next(p for k, p in events(run) if k == "tool_finished")
    assert finished["links"] == [] and finished["label"] == "Boards auflisten"


# --- titles ---------------------------------------------------------------------------------
def test_fallback_title_is_the_questions_first_words():
    long = "Bitte prüfe die Umsatzsteuervoranmeldung der Bäckerei für das dritte Quartal und melde dich"
    assert services.fallback_title(long) == "Bitte prüfe die Umsatzsteuervoranmeldung der Bäckerei für…"
    assert services.fallback_title("\n  Erste Zeile  \nzweite") == "Erste Zeile"


def _answered(anna, fake_openai, question="Was steht diese Woche an?"):
    fake_openai.reply("Drei Fristen.")
    return ask(anna, question)


@override_settings(CLAPILOT_CHAT_TITLES=True)
def test_first_answer_queues_the_title_job(
    anna, model, fake_openai, django_capture_on_commit_callbacks, monkeypatch
):
    queued = []
    monkeypatch.setattr("apps.agent.jobs.title_job.delay", queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        run = _answered(anna, fake_openai)
    assert queued == [run.pk]


def test_title_is_generated_saved_and_pushed_live(anna, model, fake_openai):
    run = _answered(anna, fake_openai)
    session = run.session
    session.refresh_from_db()
    assert session.title == "Was steht diese Woche an?" and session.title_source == "fallback"
    fake_openai.reply("„Fristen dieser Woche“.")
    before = MutationEvent.objects.count()

    assert titles.generate(run.pk) == "named"

    session.refresh_from_db()
    assert session.title == "Fristen dieser Woche" and session.title_source == "generated"
    request = fake_openai.chat_requests[-1]
    assert request["stream"] is False and "Drei Fristen." in request["messages"][-1]["content"]
    event = MutationEvent.objects.order_by("id").last()
    assert MutationEvent.objects.count() == before + 1
    assert event.audience == "user" and event.user_id == anna.pk and event.topic == "chat.session.updated"
    assert event.ui_actions[0]["record"]["title"] == "Fristen dieser Woche"
    assert "announce_key" not in event.ui_actions[0]  # no toast for a title
    run.refresh_from_db()
    assert run.prompt_tokens == 20  # the title call's usage is the run's


def test_a_failed_title_call_keeps_the_fallback(anna, model, fake_openai):
    run = _answered(anna, fake_openai)
    fake_openai.error(500, "down")
    assert titles.generate(run.pk) == "failed"
    session = ChatSession.objects.get(pk=run.session_id)
    assert session.title == "Was steht diese Woche an?" and session.title_source == "fallback"


def test_an_empty_title_answer_keeps_the_fallback(anna, model, fake_openai):
    run = _answered(anna, fake_openai)
    fake_openai.reply(' "" ')
    assert titles.generate(run.pk) == "empty"
    assert ChatSession.objects.get(pk=run.session_id).title == "Was steht diese Woche an?"


def test_a_users_name_is_never_replaced(anna, model, fake_openai):
    run = _answered(anna, fake_openai)
    services.rename_session(
        Principal.for_user(anna), run.session_id, build(ChatSessionRename, title="Meine Fristen")
    )
    calls = len(fake_openai.chat_requests)
    assert titles.generate(run.pk) == "skipped"
    assert len(fake_openai.chat_requests) == calls  # no model call at all
    assert ChatSession.objects.get(pk=run.session_id).title == "Meine Fristen"


def test_only_the_first_answer_names_the_chat(anna, model, fake_openai):
    run = _answered(anna, fake_openai)
    fake_openai.reply("Noch eine Antwort.")
    second = say(Principal.for_user(anna), run.session_id, "Und nächste Woche?")
    from apps.agent.runtime import run_agent

    run_agent(second.pk)
    calls = len(fake_openai.chat_requests)
    assert titles.generate(second.pk) == "skipped" and len(fake_openai.chat_requests) == calls


def test_the_title_call_goes_through_the_neutralization_gate(anna, model, fake_openai):
    Client.objects.create(name="Hubertus Wendeberg", kind="person", client_number="K-4711")
    fake_openai.forbid("Wendeberg")
    fake_openai.reply("Für [MANDANT_1] ist nichts offen.")
    run = ask(anna, "Was ist für Hubertus Wendeberg offen?", require_neutralization=True)
    fake_openai.reply("Offenes für [MANDANT_1]")
    assert titles.generate(run.pk) == "named"
    assert fake_openai.violations == []
    # the title the user sees carries the real name again
    assert ChatSession.objects.get(pk=run.session_id).title == "Offenes für Hubertus Wendeberg"


def test_title_cleaning():
    assert titles.clean('Titel: "Umsatzsteuer Q3".\nweil …') == "Umsatzsteuer Q3"
    assert titles.clean("**Fristen**") == "Fristen"
    assert len(titles.clean("Wort " * 40)) <= titles.TITLE_CHARS


def test_tool_history_rows_keep_links(anna, model, fake_openai, statuses):
    board = Board.objects.create(name="Privat", visibility=Board.Visibility.PRIVATE, owner=anna)
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "Privates", "board_id": board.pk}))
    fake_openai.reply("Ok.")
    run = ask(anna, "Leg privat an")
    row = run.session.messages.get(role=Message.Role.TOOL)
    task = Task.objects.get()
    assert row.metadata["links"][0]["url"] == f"/aufgaben/{task.pk}/"
