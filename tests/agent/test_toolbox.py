"""The toolbox starts small and grows within the run; the todo list streams as events."""

from __future__ import annotations

import json

import pytest

from apps.agent.models import Message, Run
from tests.agent.helpers import ask, events

pytestmark = pytest.mark.django_db


def _names(request: dict) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools", [])}


def test_request_toolbox_adds_the_family_for_the_next_round(user, model, fake_openai):
    fake_openai.tool_calls(("request_toolbox", {"toolbox": "mandanten", "reason": "Mandant suchen"}))
    fake_openai.reply("Jetzt kann ich Mandanten suchen.")
    run = ask(user, "Such den Mandanten Meier")

    assert run.status == Run.Status.COMPLETED
    first, second = fake_openai.chat_requests
    assert "request_toolbox" in _names(first) and "mandanten_search" not in _names(first)
    assert {"mandanten_search", "mandanten_get"} <= _names(second)
    result = json.loads(run.session.messages.get(role=Message.Role.TOOL).content)
    assert result["output"]["toolbox"] == "mandanten" and "mandanten_search" in result["output"]["tools"]


def test_unknown_toolbox_is_fed_back(user, model, fake_openai):
    fake_openai.tool_calls(("request_toolbox", {"toolbox": "zauberei", "reason": ""})).reply("Gibt es nicht.")
    run = ask(user)
    result = json.loads(run.session.messages.get(role=Message.Role.TOOL).content)
    assert result["ok"] is False and result["code"] == "unknown_family"
    assert "mandanten" in result["output"]["toolboxes"]


def test_a_tool_called_through_tool_execute_joins_the_toolbox(user, model, fake_openai):
    fake_openai.tool_calls(("tool_execute", {"tool": "mandanten_list", "arguments": "{}"}))
    fake_openai.reply("ok")
    run = ask(user)
    assert run.status == Run.Status.COMPLETED
    assert "mandanten_list" in _names(fake_openai.chat_requests[1])
    assert "mandanten_search" not in _names(fake_openai.chat_requests[1])


def test_todo_updates_are_events(user, model, fake_openai):
    items = [
        {"title": "Belege prüfen", "status": "done"},
        {"title": "Aufgabe anlegen", "status": "in_progress"},
    ]
    fake_openai.tool_calls(("agent_todo_update", {"items": items})).reply("Weiter.")
    run = ask(user)
    todos = [p for k, p in events(run) if k == "todo"]
    assert todos == [{"items": items}]


def test_a_write_through_tool_execute_reports_its_mutation_event(user, model, fake_openai, board, statuses):
    from apps.mutations.models import MutationEvent

    arguments = json.dumps({"title": "Vom Agenten", "board_id": board.pk})
    fake_openai.tool_calls(("tool_execute", {"tool": "aufgaben_create_task", "arguments": arguments}))
    fake_openai.reply("Angelegt.")
    run = ask(user)

    assert run.status == Run.Status.COMPLETED
    result = json.loads(run.session.messages.get(role=Message.Role.TOOL).content)
    event = MutationEvent.objects.get(topic="aufgaben.task.updated")
    assert result["ok"] and result["mutation_event_id"] == event.id
    assert (event.origin_tool, event.origin_run) == ("aufgaben_create_task", str(run.pk))
    assert event.ui_actions[0]["record_id"] == str(result["output"]["task"]["id"])
