"""The Kalender's typed contract: the record builder produces exactly `EventOut`, the choices match
the model's, and the REST surface keeps its input rules (null only where it was allowed)."""

import datetime as dt

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.calendar import contracts as c
from apps.calendar import services
from apps.calendar.contracts import EventCreate, EventFilter
from apps.calendar.models import CalendarEvent
from apps.calendar.records import event_record
from apps.core.inputs import build
from apps.tools import registry
from apps.tools.schema import strict_violations

pytestmark = pytest.mark.django_db


def test_choices_are_named_enums_for_openapi_and_inline_for_tools():
    for enum, choices in ((c.Kind, CalendarEvent.Kind), (c.Visibility, CalendarEvent.Visibility)):
        assert [m.value for m in enum] == choices.values
    assert c.EventCreate.model_json_schema()["properties"]["kind"]["$ref"] == "#/$defs/EventKind"
    tool = registry.get("calendar_create_event")
    assert tool.schema["properties"]["kind"]["enum"][:2] == ["event", "deadline"]
    assert strict_violations(tool.schema) == []


def test_every_record_shape_is_the_declared_output(as_anna, anna, ben, soon, meier, as_robot):
    deadline = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Einspruchsfrist",
            kind="deadline",
            all_day=True,
            start=soon.date().isoformat(),
            legal_basis="§ 355 AO",
            criticality="critical",
            client_id=meier.pk,
            attendee_ids=[ben.pk],
            remind_minutes_before=60,
        ),
    )
    series = services.create_event(
        as_robot,
        build(
            EventCreate,
            title="Team",
            start=soon.isoformat(),
            rrule="FREQ=DAILY;COUNT=3",
            conference_url="https://meet.example.com/team",
            conference_provider="Teams",
        ),
    )
    private = services.create_event(
        as_anna, build(EventCreate, title="Zahnarzt", start=soon.isoformat(), visibility="private")
    )
    occurrences, _total = services.list_events(
        as_anna, build(EventFilter, start=soon.isoformat(), end=(soon + dt.timedelta(days=5)).isoformat())
    )
    records = [event_record(e) for e in (deadline, series, private)]
    records += [event_record(o.event, o) for o in occurrences]
    for record in records:
        assert c.EventOut.model_validate(record).model_dump(mode="json") == record
    assert any(r["series_start"] for r in records) and any(r["client"] for r in records)
    assert any(r["created_by_service"] for r in records) and any(r["due"] for r in records)


# --- REST input rules -------------------------------------------------------------------------
@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.mark.parametrize("field", ["title", "start", "kind", "all_day", "description", "attendee_ids"])
def test_rest_refuses_null_where_it_always_did(api, make_event, field):
    event = make_event("Termin")
    response = api.patch(f"/api/v1/calendar/events/{event.pk}", {field: None}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_request"
    assert field in response.json()
    assert CalendarEvent.objects.get().version == 1


def test_rest_null_empties_end_and_reminder(api, make_event, soon):
    event = make_event("Termin", minutes=90, remind_minutes_before=10)
    response = api.patch(
        f"/api/v1/calendar/events/{event.pk}", {"end": None, "remind_minutes_before": None}, format="json"
    )
    assert response.status_code == 200, response.content
    record = response.json()["event"]
    assert record["remind_minutes_before"] is None
    assert dt.datetime.fromisoformat(record["end"]) - dt.datetime.fromisoformat(
        record["start"]
    ) == dt.timedelta(hours=1)


def test_rest_list_still_takes_q(api, make_event):
    make_event("Mandantengespräch Hoffmann")
    make_event("Etwas anderes")
    listed = api.get("/api/v1/calendar/events", {"q": "hoffmann"}).json()
    assert [e["title"] for e in listed["events"]] == ["Mandantengespräch Hoffmann"]
