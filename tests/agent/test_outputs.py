"""The chat's output models build the wire records themselves (`RowOutput.record`): byte for byte
what the hand-written `services.serialize_*` / `session_record` builders sent over the socket,
SSE and REST. The builders below are those builders before they went, kept as the reference."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.agent import contracts as c
from apps.agent import outcomes, services
from apps.agent.models import Message, Run, RunEvent
from apps.core.records import attrs, iso
from apps.core.surfaces.api import dump
from apps.tools.results import ToolResult
from tests.agent.helpers import say

pytestmark = pytest.mark.django_db


def session_record(session):
    return {
        "id": session.pk,
        **attrs(session, "title", "title_source"),
        "url": reverse("chat:session", args=[session.pk]),
    }


def api_session_record(session):
    return {
        "id": session.pk,
        "title": session.title,
        "created_at": session.created_at,
        "updated_at": session.updated_at,
    }


def serialize_event(event):
    return {
        "id": event.pk,
        **attrs(event, "run_id", "seq", "kind", "payload"),
        "created_at": event.created_at.isoformat(),
    }


def serialize_run(run, *, events=False):
    data = {
        "id": run.pk,
        **attrs(run, "session_id", "status", "kind"),
        "model": run.model_label,
        **attrs(run, "max_rounds", "rounds", "prompt_tokens", "completion_tokens"),
        "cost": str(run.cost),
        **attrs(run, "error_code", "error_message", "diagnostics"),
        "outcome": outcomes.record(run),
        "retry_of_id": run.retry_of_id,
        "created_at": run.created_at.isoformat(),
        "started_at": iso(run.started_at),
        "finished_at": iso(run.finished_at),
    }
    if events:
        data["events"] = [serialize_event(e) for e in run.events.order_by("seq")]
    return data


def serialize_message(message):
    return {
        "id": message.pk,
        **attrs(message, "role", "content", "tool_calls", "tool_call_id", "run_id", "metadata"),
        "created_at": message.created_at.isoformat(),
        "run_outcome": outcomes.record(message.run) if message.run_id else None,
        "tool_error": outcomes.tool_error(message) if message.role == Message.Role.TOOL else None,
    }


def same_bytes(a, b) -> bool:
    return json.dumps(a, ensure_ascii=False, sort_keys=False) == json.dumps(
        b, ensure_ascii=False, sort_keys=False
    )


@pytest.fixture
def rows(user, model):
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    done = say(principal, session.pk, "Was steht an?", budget="1.5")
    services.record_event(done, RunEvent.Kind.TOKEN, {"text": "Zwei „Fristen“"})
    services.add_message(
        done, Message.Role.ASSISTANT, "", tool_calls=[{"id": "c1", "name": "x", "arguments": "{}"}]
    )
    failure = ToolResult.failure("task_not_found", "Diese Aufgabe gibt es nicht.")
    services.add_message(
        done,
        Message.Role.TOOL,
        json.dumps(failure.as_dict()),
        tool_call_id="c1",
        metadata={"name": "aufgaben_get_task", "ok": False, "code": "task_not_found"},
    )
    services.start_run(done)
    services.finish_run(done, Run.Status.COMPLETED)
    failed = say(principal, session.pk, "Und morgen?")
    services.finish_run(failed, Run.Status.FAILED, error_code="provider_timeout", error_message="Zu langsam.")
    retry = services.retry_run(principal, failed.pk)
    return session, [done, failed, retry]


def test_run_event_and_session_records_are_byte_for_byte_the_old_ones(rows):
    session, runs = rows
    session.refresh_from_db()
    assert same_bytes(c.ChatSessionEntry.record(session), session_record(session))
    assert same_bytes(c.ChatSessionOut.record(session), dump(c.ChatSessionOut, api_session_record(session)))
    for run in runs:
        run = Run.objects.get(pk=run.pk)
        assert same_bytes(c.RunOut.record(run), serialize_run(run))
        assert same_bytes(c.RunWithEventsOut.record(run), serialize_run(run, events=True))
        for event in run.events.all():
            assert same_bytes(c.RunEventOut.record(event), serialize_event(event))
    assert c.RunOut.record(runs[1])["outcome"]["code"] == "provider_timeout"
    assert c.RunOut.record(Run.objects.get(pk=runs[2].pk))["retry_of_id"] == runs[1].pk


def test_message_records_are_byte_for_byte_the_old_ones(rows):
    session, _runs = rows
    messages = list(session.messages.select_related("run").order_by("id"))
    assert len(messages) == 4
    for message in messages:
        assert same_bytes(c.MessageOut.record(message), serialize_message(message))
    assert c.MessageOut.record(messages[2])["tool_error"] == {
        "code": "task_not_found",
        "message": "Diese Aufgabe gibt es nicht.",
    }


def test_the_live_event_is_the_record(rows, monkeypatch, django_capture_on_commit_callbacks):
    from apps.agent import live

    _session, runs = rows
    sent = []
    monkeypatch.setattr(live, "publish", lambda session_id, data: sent.append(data))
    with django_capture_on_commit_callbacks(execute=True):
        event = services.record_event(runs[0], RunEvent.Kind.TOKEN, {"text": "ä"})
    stored = RunEvent.objects.get(pk=event.pk)
    assert sent == [serialize_event(stored)]
    assert type(sent[0]["kind"]) is str  # plain text for the channel layer, not an enum member
