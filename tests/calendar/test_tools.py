"""Each calendar_* tool: success, bad input (nothing written), permission; constant query counts."""

import datetime as dt
from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.calendar.models import CalendarEvent
from apps.mutations.models import MutationEvent
from apps.tools import registry
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    # As if a person approved each call (deletes wait for one by default): these tests are about
    # the tools themselves; the approval step is tested in tests/approvals.
    return dispatch(tool_name, args, replace(ctx, approved=True))


def test_the_core_calendar_tools():
    # calendar_compute_deadline is the deadlines app's, in the Kalender's family.
    names = sorted(t.name for t in registry.all_tools() if t.family == "calendar")
    assert set(names) - {"calendar_compute_deadline"} == {
        "calendar_cancel_deadline",
        "calendar_reopen_deadline",
        "calendar_complete_deadline",
        "calendar_create_event",
        "calendar_delete_event",
        "calendar_get_event",
        "calendar_list_deadlines",
        "calendar_list_events",
        "calendar_update_event",
    }
    assert not any(t.is_gated for t in registry.all_tools() if t.family == "calendar")


def test_read_before_write_create_read_after_write_update_delete(anna_ctx, soon):
    window = {"start": soon.replace(hour=0).isoformat(), "end": (soon + dt.timedelta(days=1)).isoformat()}
    assert call(anna_ctx, "calendar_list_events", **window).output["total"] == 0
    created = call(
        anna_ctx,
        "calendar_create_event",
        title="Mandantengespräch Hoffmann",
        start=soon.isoformat(),
        end=(soon + dt.timedelta(minutes=45)).isoformat(),
        conference_url="https://meet.example.com/abc",
        conference_provider="Teams",
    )
    assert created.ok, created.message
    event = created.output["event"]
    assert event["source_origin"] == "agent" and event["conference_provider"] == "Teams"
    assert created.mutation_event_id is not None
    live = MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions  # shared: the fan-out
    assert any(a.get("announce_key") == "calendar.event.created" for a in live)

    got = call(anna_ctx, "calendar_get_event", event_id=event["id"])
    assert got.output["event"]["title"] == "Mandantengespräch Hoffmann"
    assert call(anna_ctx, "calendar_list_events", **window).output["total"] == 1

    updated = call(
        anna_ctx,
        "calendar_update_event",
        event_id=event["id"],
        location="Raum 2",
        clear_fields=["conference_url"],
    )
    assert updated.ok, updated.message
    assert updated.output["event"]["conference_url"] == "" and updated.output["event"]["location"] == "Raum 2"
    assert updated.output["event"]["title"] == "Mandantengespräch Hoffmann"  # untouched

    deleted = call(anna_ctx, "calendar_delete_event", event_id=event["id"])
    assert deleted.ok and not CalendarEvent.objects.exists()
    assert call(anna_ctx, "calendar_get_event", event_id=event["id"]).code == "event_not_found"


def test_create_a_deadline_keeps_frist_fields(anna_ctx):
    schulz = ClientFactory(name="Bäckerei Schulz GmbH", client_number="10002")
    due = (dt.date.today() + dt.timedelta(days=10)).isoformat()
    result = call(
        anna_ctx,
        "calendar_create_event",
        title="Umsatzsteuer-Voranmeldung",
        kind="deadline",
        start=due,
        all_day=True,
        legal_basis="§ 18 UStG",
        criticality="high",
        source_label="USt-Kalender",
        client_id=schulz.pk,
    )
    assert result.ok, result.message
    event = result.output["event"]
    assert event["kind"] == "deadline" and event["due"] == event["start"]
    assert event["countdown_days"] in (9, 10, 11)
    assert event["client_id"] == schulz.pk and event["client"]["name"] == "Bäckerei Schulz GmbH"
    listed = call(
        anna_ctx,
        "calendar_list_events",
        kind="deadline",
        end=(dt.date.today() + dt.timedelta(days=20)).isoformat(),
    )
    assert listed.output["total"] == 1


def test_list_expands_recurrences_in_the_window(anna_ctx, soon):
    call(anna_ctx, "calendar_create_event", title="Team", start=soon.isoformat(), rrule="FREQ=DAILY;COUNT=5")
    page = call(
        anna_ctx,
        "calendar_list_events",
        start=soon.isoformat(),
        end=(soon + dt.timedelta(days=10)).isoformat(),
        limit=2,
    )
    assert page.output["total"] == 5 and len(page.output["events"]) == 2 and page.output["has_more"] is True
    assert page.output["events"][1]["series_start"] == page.output["events"][0]["start"]


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        (
            "calendar_create_event",
            {"title": "x" * 400, "start": "2026-12-01T10:00:00+01:00"},
            "invalid_arguments",
        ),
        ("calendar_create_event", {"title": "ok"}, "invalid_arguments"),
        ("calendar_create_event", {"title": "ok", "start": "morgen"}, "invalid_input"),
        (
            "calendar_create_event",
            {"title": "ok", "start": "2026-12-01T10:00:00+01:00", "end": "2026-12-01T09:00:00+01:00"},
            "invalid_input",
        ),
        (
            "calendar_create_event",
            {"title": "ok", "start": "2026-12-01T10:00:00+01:00", "rrule": "FREQ=DAILY"},
            "invalid_input",
        ),
        (
            "calendar_create_event",
            {"title": "ok", "start": "2026-12-01T10:00:00+01:00", "kind": "x"},
            "invalid_arguments",
        ),
        (
            "calendar_create_event",
            {"title": "ok", "start": "2026-12-01T10:00:00+01:00", "owner": 1},
            "invalid_arguments",
        ),
        ("calendar_update_event", {"event_id": 987654, "title": "x"}, "event_not_found"),
        ("calendar_get_event", {"event_id": "abc"}, "invalid_arguments"),
        ("calendar_delete_event", {"event_id": 987654}, "event_not_found"),
        ("calendar_list_events", {"limit": 5000}, "invalid_arguments"),
        ("calendar_list_events", {"start": "gestern"}, "invalid_input"),
    ],
)
def test_bad_input_has_a_clear_code_and_writes_nothing(anna_ctx, name, args, code):
    result = dispatch(name, args, anna_ctx)
    assert (result.ok, result.code) == (False, code), result.message
    assert result.message
    assert not CalendarEvent.objects.exists() and not MutationEvent.objects.exists()


def test_another_users_private_event_is_not_found(anna_ctx, as_ben, as_robot, soon):
    event = call(
        anna_ctx, "calendar_create_event", title="Privat", start=soon.isoformat(), visibility="private"
    )
    event_id = event.output["event"]["id"]
    for principal in (as_ben, as_robot):
        ctx = ToolContext(principal=principal)
        assert call(ctx, "calendar_get_event", event_id=event_id).code == "event_not_found"
        assert (
            call(ctx, "calendar_update_event", event_id=event_id, title="gehackt").code == "event_not_found"
        )
        assert call(ctx, "calendar_delete_event", event_id=event_id).code == "event_not_found"
        assert call(ctx, "calendar_list_events").output["total"] == 0
    assert CalendarEvent.objects.get().title == "Privat"


def test_update_with_bad_end_writes_nothing(anna_ctx, soon):
    event_id = call(anna_ctx, "calendar_create_event", title="Termin", start=soon.isoformat()).output[
        "event"
    ]["id"]
    before = MutationEvent.objects.count()
    bad = call(
        anna_ctx,
        "calendar_update_event",
        event_id=event_id,
        title="Neu",
        end=(soon - dt.timedelta(hours=2)).isoformat(),
    )
    assert bad.code == "invalid_input"
    assert CalendarEvent.objects.get().title == "Termin" and MutationEvent.objects.count() == before


def test_list_tool_query_count_is_constant(anna_ctx, make_event, ben, soon):
    def count_queries():
        with CaptureQueriesContext(connection) as ctx:
            assert dispatch("calendar_list_events", {"limit": 200}, anna_ctx).ok
        return len(ctx.captured_queries)

    def add(n, prefix):
        for i in range(n):
            event = make_event(f"{prefix}{i}", start=soon + dt.timedelta(hours=i))
            event.attendees.add(ben)

    add(2, "a")
    few = count_queries()
    add(30, "b")
    make_event("Serie", rrule="FREQ=DAILY;COUNT=5", recurrence_end=soon + dt.timedelta(days=5))
    assert count_queries() == few
