"""The Frist lifecycle through the agent tools and the REST API: the new fields on create/update/
get/list, complete and cancel, the refusals as stable codes, and nothing half-written."""

import datetime as dt
from dataclasses import replace

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.calendar.models import CalendarEvent, DeadlineChange
from apps.deadlines.compute import is_working_day
from apps.tools.dispatcher import dispatch
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.django_db


def _working(after_days: int) -> dt.date:
    day = dt.date.today() + dt.timedelta(days=after_days)
    while not is_working_day(day):
        day += dt.timedelta(days=1)
    return day


def call(ctx, name, **args):
    # As if a person approved each call (deletes wait for one by default): these tests are about
    # the tools themselves; the approval step is tested in tests/approvals.
    return dispatch(name, args, replace(ctx, approved=True))


@pytest.fixture
def due():
    return _working(30)


@pytest.fixture
def frist(anna_ctx, ben, due):
    result = call(
        anna_ctx,
        "calendar_create_event",
        title="Einspruch Meier",
        kind="deadline",
        start=due.isoformat(),
        all_day=True,
        deputy_id=ben.pk,
        pre_deadlines=[{"due_date": (due - dt.timedelta(days=5)).isoformat(), "note": "Entwurf"}],
    )
    assert result.ok, result.output
    return result.output["event"]


# --- tools ----------------------------------------------------------------------------------------
def test_create_and_get_carry_responsible_deputy_vorfristen_and_status(frist, anna_ctx, anna, ben, due):
    assert frist["responsible"]["id"] == anna.pk and frist["deputy"]["id"] == ben.pk
    assert frist["status"] == "open" and frist["is_overdue"] is False
    assert [(p["due_date"], p["note"]) for p in frist["pre_deadlines"]] == [
        ((due - dt.timedelta(days=5)).isoformat(), "Entwurf")
    ]
    got = call(anna_ctx, "calendar_get_event", event_id=frist["id"]).output["event"]
    assert got == frist


def test_complete_tool_then_deadline_not_open(frist, ben_ctx, ben):
    done = call(ben_ctx, "calendar_complete_deadline", event_id=frist["id"], how="Einspruch eingelegt")
    assert done.ok and done.output["event"]["status"] == "done"
    assert (
        done.output["event"]["done_by"]["id"] == ben.pk
        and done.output["event"]["done_how"] == "Einspruch eingelegt"
    )
    again = call(ben_ctx, "calendar_complete_deadline", event_id=frist["id"], how="nochmal")
    assert not again.ok and again.code == "deadline_not_open"
    cancel = call(ben_ctx, "calendar_cancel_deadline", event_id=frist["id"], reason="x")
    assert not cancel.ok and cancel.code == "deadline_not_open"


def test_cancel_tool_and_bad_input_writes_nothing(frist, anna_ctx):
    lines = DeadlineChange.objects.count()
    for args in ({"reason": ""}, {}, {"reason": "x" * 501}):
        refused = call(anna_ctx, "calendar_cancel_deadline", event_id=frist["id"], **args)
        assert not refused.ok and refused.code in ("invalid_arguments", "invalid_input"), refused.output
    bad_link = call(
        anna_ctx, "calendar_complete_deadline", event_id=frist["id"], how="ok", link="javascript:x"
    )
    assert not bad_link.ok
    assert (
        DeadlineChange.objects.count() == lines and CalendarEvent.objects.get(pk=frist["id"]).status == "open"
    )
    cancelled = call(anna_ctx, "calendar_cancel_deadline", event_id=frist["id"], reason="Bescheid aufgehoben")
    assert cancelled.ok and cancelled.output["event"]["cancel_reason"] == "Bescheid aufgehoben"


def test_delete_tool_refuses_a_frist(frist, anna_ctx):
    refused = call(anna_ctx, "calendar_delete_event", event_id=frist["id"])
    assert not refused.ok and refused.code == "deadline_not_deletable"
    assert CalendarEvent.objects.filter(pk=frist["id"]).exists()


def test_update_tool_moves_only_with_a_reason(frist, anna_ctx, due):
    new_due = _working(40).isoformat()
    refused = call(anna_ctx, "calendar_update_event", event_id=frist["id"], start=new_due)
    assert not refused.ok and refused.code == "deadline_reason_required"
    moved = call(anna_ctx, "calendar_update_event", event_id=frist["id"], start=new_due, reason="verlängert")
    assert moved.ok and moved.output["event"]["start_date"] == new_due


def test_update_tool_reassigns_and_clears(frist, anna_ctx, ben):
    gone = UserFactory(is_active=False)
    refused = call(anna_ctx, "calendar_update_event", event_id=frist["id"], responsible_id=gone.pk)
    assert not refused.ok and refused.code == "invalid_input"
    cleared = call(
        anna_ctx, "calendar_update_event", event_id=frist["id"], clear_fields=["deputy_id", "pre_deadlines"]
    )
    assert (
        cleared.ok
        and cleared.output["event"]["deputy"] is None
        and cleared.output["event"]["pre_deadlines"] == []
    )


def test_unknown_rule_code_is_refused(anna_ctx, due):
    refused = call(
        anna_ctx,
        "calendar_create_event",
        title="x",
        kind="deadline",
        start=due.isoformat(),
        rule_code="gibtsnicht",
    )
    assert not refused.ok and refused.code == "deadline_rule_not_found"
    assert not CalendarEvent.objects.exists()


def test_list_events_filters_by_status_and_responsible(frist, anna_ctx, ben, due):
    window = {"start": dt.date.today().isoformat(), "end": (due + dt.timedelta(days=1)).isoformat()}
    assert call(anna_ctx, "calendar_list_events", **window, status="open").output["total"] == 1
    assert call(anna_ctx, "calendar_list_events", **window, status="done").output["total"] == 0
    assert call(anna_ctx, "calendar_list_events", **window, responsible_id=ben.pk).output["total"] == 0
    assert call(anna_ctx, "calendar_list_events", **window, deputy_id=ben.pk).output["total"] == 1


def test_list_deadlines_tool_filters_and_constant_queries(anna_ctx, ben, due):
    client = ClientFactory()
    for i in range(2):
        call(
            anna_ctx,
            "calendar_create_event",
            title=f"F{i}",
            kind="deadline",
            start=_working(10 + i).isoformat(),
        )
    with CaptureQueriesContext(connection) as few:
        listed = call(anna_ctx, "calendar_list_deadlines")
    assert listed.ok and listed.output["total"] == 2
    for i in range(10):
        call(
            anna_ctx,
            "calendar_create_event",
            title=f"G{i}",
            kind="deadline",
            start=_working(20 + i).isoformat(),
            client_id=client.pk,
            responsible_id=ben.pk,
        )
    with CaptureQueriesContext(connection) as many:
        listed = call(anna_ctx, "calendar_list_deadlines")
    assert listed.output["total"] == 12 and len(many) == len(few)
    assert call(anna_ctx, "calendar_list_deadlines", responsible_id=ben.pk).output["total"] == 10
    assert call(anna_ctx, "calendar_list_deadlines", client_id=client.pk, limit=3).output["has_more"] is True
    assert call(anna_ctx, "calendar_list_deadlines", status="done").output["total"] == 0
    bad = call(anna_ctx, "calendar_list_deadlines", due_from="2026-02-01", due_to="2026-01-01")
    assert not bad.ok and bad.code == "invalid_input"


def test_another_persons_private_frist_cannot_be_completed(anna_ctx, ben_ctx, due):
    private = call(
        anna_ctx,
        "calendar_create_event",
        title="privat",
        kind="deadline",
        start=due.isoformat(),
        visibility="private",
    ).output["event"]
    refused = call(ben_ctx, "calendar_complete_deadline", event_id=private["id"], how="x")
    assert not refused.ok and refused.code == "event_not_found"


# --- REST -----------------------------------------------------------------------------------------
@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_rest_complete_cancel_history_and_list(api, frist):
    eid = frist["id"]
    done = api.post(f"/api/v1/calendar/deadlines/{eid}/complete", {"how": "Klage erhoben"}, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["event"]["status"] == "done"
    again = api.post(f"/api/v1/calendar/deadlines/{eid}/complete", {"how": "x"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "deadline_not_open"
    history = api.get(f"/api/v1/calendar/deadlines/{eid}/history").json()["history"]
    assert [h["field"] for h in history][-1] == "status" and history[-1]["reason"] == "Klage erhoben"
    listed = api.get("/api/v1/calendar/deadlines", {"status": "done"}).json()
    assert listed["total"] == 1 and listed["deadlines"][0]["id"] == eid
    assert api.get("/api/v1/calendar/deadlines").json()["total"] == 0


def test_rest_refusals(api, frist):
    eid = frist["id"]
    assert api.delete(f"/api/v1/calendar/events/{eid}").status_code == 409
    empty = api.post(f"/api/v1/calendar/deadlines/{eid}/cancel", {"reason": ""}, format="json")
    assert empty.status_code == 400
    moved = api.patch(f"/api/v1/calendar/events/{eid}", {"start": _working(50).isoformat()}, format="json")
    assert moved.status_code == 400 and moved.json()["code"] == "deadline_reason_required"
    missing = api.post("/api/v1/calendar/deadlines/999999/complete", {"how": "x"}, format="json")
    assert missing.status_code == 404 and missing.json()["code"] == "event_not_found"
    assert CalendarEvent.objects.get(pk=eid).status == "open"
    ok = api.patch(
        f"/api/v1/calendar/events/{eid}",
        {"start": _working(50).isoformat(), "reason": "verlängert"},
        format="json",
    )
    assert ok.status_code == 200 and ok.json()["event"]["start_date"] == _working(50).isoformat()
