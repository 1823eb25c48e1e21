"""Calendar entries and Fristen link an Akte through the calendar tools: the case decides the
client, a case of another client answers `case_client_mismatch`, an invisible one
`case_not_found`; `case_id` filters calendar_list_events and calendar_list_deadlines."""

import datetime as dt

import pytest

from apps.calendar.models import CalendarEvent
from apps.clients.models import Case
from apps.mutations.models import MutationEvent
from apps.tools.dispatcher import dispatch
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    return dispatch(tool_name, args, ctx)


@pytest.fixture
def akte(meier):
    return Case.objects.create(client=meier, reference="2026-0042", subject="Einspruch ESt 2024")


def _due(days=5):
    return (dt.date.today() + dt.timedelta(days=days)).isoformat()


def test_frist_and_appointment_link_the_case_and_filter(anna_ctx, akte, meier):
    frist = call(
        anna_ctx, "calendar_create_event", title="Einspruchsfrist", kind="deadline", start=_due(), all_day=True,
        case_id=akte.pk,
    )  # fmt: skip
    assert frist.ok, frist.message
    assert frist.output["event"]["case_id"] == akte.pk and frist.output["event"]["client_id"] == meier.pk
    start = f"{_due(3)}T10:00:00+01:00"
    termin = call(anna_ctx, "calendar_create_event", title="Besprechung", start=start, case_id=akte.pk)
    assert termin.ok, termin.message
    call(anna_ctx, "calendar_create_event", title="Ohne Akte", start=start, client_id=meier.pk)
    listed = call(anna_ctx, "calendar_list_events", case_id=akte.pk, end=f"{_due(30)}T00:00:00+01:00")
    assert listed.ok and sorted(e["title"] for e in listed.output["events"]) == [
        "Besprechung",
        "Einspruchsfrist",
    ]
    deadlines = call(anna_ctx, "calendar_list_deadlines", case_id=akte.pk)
    assert [e["title"] for e in deadlines.output["deadlines"]] == ["Einspruchsfrist"]


def test_a_case_of_another_client_is_refused(anna_ctx, akte):
    vogel = ClientFactory(name="Schreinerei Vogel")
    refused = call(
        anna_ctx, "calendar_create_event", title="X", kind="deadline", start=_due(), all_day=True,
        client_id=vogel.pk, case_id=akte.pk,
    )  # fmt: skip
    assert not refused.ok and refused.code == "case_client_mismatch"
    assert refused.output["field_errors"]["case_id"]
    ok = call(
        anna_ctx, "calendar_create_event", title="Vogel", start=f"{_due()}T10:00:00+01:00", client_id=vogel.pk
    )
    moved = call(anna_ctx, "calendar_update_event", event_id=ok.output["event"]["id"], case_id=akte.pk)
    assert moved.code == "case_client_mismatch"
    assert CalendarEvent.objects.get().case_id is None and CalendarEvent.objects.count() == 1


def test_an_invisible_case_is_refused_everywhere(anna_ctx, akte, monkeypatch):
    from apps.clients import visibility

    original = visibility.visible_cases
    monkeypatch.setattr(
        visibility, "visible_cases", lambda principal: original(principal).exclude(pk=akte.pk)
    )
    created = call(
        anna_ctx, "calendar_create_event", title="X", start=f"{_due()}T10:00:00+01:00", case_id=akte.pk
    )
    assert not created.ok and created.code == "case_not_found"
    assert created.output["field_errors"] == {"case_id": created.message}
    assert call(anna_ctx, "calendar_list_events", case_id=akte.pk).code == "case_not_found"
    assert call(anna_ctx, "calendar_list_deadlines", case_id=akte.pk).code == "case_not_found"
    assert not CalendarEvent.objects.exists() and not MutationEvent.objects.exists()
