"""The output models build the wire records themselves (`RowOutput.record`): byte for byte the
shape the hand-written `records.py` builders sent to tools, pages and live events, and what the
REST API answered. The builders below are those of `apps/calendar/records.py` before it went,
kept as the reference."""

import datetime as dt
import json

import pytest

from apps.accounts.contracts import person_ref
from apps.accounts.principal import Principal
from apps.calendar import contracts as c
from apps.calendar import lifecycle, services
from apps.calendar.contracts import DeadlineComplete, EventCreate, FiledEventUpdate
from apps.calendar.models import CalendarEvent, DeadlineChange
from apps.calendar.records import (
    EventRow,
    Occurrence,
    _tz,
    countdown_days,
    detail_url,
    event_record,
    history_record,
    is_critical_soon,
)
from apps.clients.models import Case
from apps.clients.records import client_ref
from apps.core.inputs import build
from apps.core.records import attrs, iso, stamps
from apps.core.surfaces.api import dump
from apps.core.timezones import in_zone
from tests.factories import ClientFactory, ServicePrincipalFactory, UserFactory

pytestmark = pytest.mark.django_db


def old_event_record(event: CalendarEvent, occurrence: Occurrence | None = None) -> dict:
    # Times go out in the entry's own zone (with its offset): what the office reads on a wall clock.
    local = _tz(event)
    start = in_zone(occurrence.start if occurrence else event.start, local)
    end = in_zone(occurrence.end if occurrence else event.end, local)
    deadline = event.is_deadline
    days = countdown_days(event, start) if deadline else None
    record = {
        "id": event.pk,
        **attrs(event, "kind", "title", "description"),
        "start": start.isoformat(),
        "end": end.isoformat(),
        "all_day": event.all_day,
        "start_date": in_zone(start, local).date().isoformat(),
        "end_date": _end_date(start, end, event.all_day, local).isoformat(),
        **attrs(event, "time_zone", "location", "visibility"),
        "owner": person_ref(event.owner),
        "attendees": [person_ref(u) for u in event.attendees.all()],
        "created_by": person_ref(event.created_by),
        "created_by_service": event.created_by_service.name if event.created_by_service else None,
        **attrs(event, "conference_url", "conference_provider", "source_origin", "source_label", "client_id"),
        "client": client_ref(event.client),
        "due": start.isoformat() if deadline else None,
        **attrs(event, "legal_basis", "criticality"),
        "countdown_days": days,
        "is_critical_soon": is_critical_soon(event, days) if deadline else False,
        "rrule": event.rrule,
        "recurring": event.is_recurring,
        "series_start": in_zone(event.start, local).isoformat()
        if occurrence and event.is_recurring
        else None,
        **deadline_fields(event, days),
        "remind_minutes_before": event.remind_minutes_before,
        "reminded_at": iso(event.reminded_at),
        **stamps(event),
        "url": detail_url(event.pk),
    }
    return record


def deadline_fields(event: CalendarEvent, days: int | None) -> dict:
    """The Fristenkontrolle's part of the record (always present, empty for appointments)."""
    return {
        "status": event.status,
        "is_overdue": event.is_deadline and event.status == CalendarEvent.Status.OPEN and (days or 0) < 0,
        "responsible": person_ref(event.responsible),
        "deputy": person_ref(event.deputy),
        "pre_deadlines": [
            {"id": p.pk, "due_date": p.due_date.isoformat(), "note": p.note}
            for p in event.pre_deadlines.all()
        ],
        "done_at": iso(event.done_at),
        "done_by": person_ref(event.done_by),
        **attrs(event, "done_how", "done_link"),
        "cancelled_at": iso(event.cancelled_at),
        "cancelled_by": person_ref(event.cancelled_by),
        "cancel_reason": event.cancel_reason,
        "case_id": event.case_id,
        "case": {"id": event.case.pk, "reference": event.case.reference, "subject": event.case.subject}
        if event.case_id
        else None,
        "trigger_date": iso(event.trigger_date),
        "rule_code": event.rule_code,
    }


def _end_date(start: dt.datetime, end: dt.datetime, all_day: bool, tz: dt.tzinfo) -> dt.date:
    """The last day the entry covers (all-day ends are exclusive midnights)."""
    local_end = in_zone(end, tz)
    if all_day and end > start and local_end.time() == dt.time(0):
        return local_end.date() - dt.timedelta(days=1)
    return local_end.date()


def old_history_record(change) -> dict:
    """One Fristenbuch line (`contracts.DeadlineChangeOut`); `actor` selected with it."""
    return {
        "id": change.pk,
        "event_id": change.event_id,
        "at": change.at.isoformat(),
        "actor": person_ref(change.actor),
        "actor_label": change.actor_label,
        "field": change.field,
        "old": change.old,
        "new": change.new,
        "reason": change.reason_shown,
        "reason_code": change.reason_code or None,
    }


def same_bytes(a, b):
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.fixture
def rows(anna):
    as_anna = Principal.for_user(anna)
    client = ClientFactory(name="Meier GmbH", client_number="10003")
    case = Case.objects.create(client=client, reference="2026/17", subject="Einspruch 2023")
    ben = UserFactory(full_name="Ben Braun")
    plain = services.create_event(
        as_anna, build(EventCreate, title="schlicht", start="2026-12-03T10:00:00+01:00")
    )
    series = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Jour fixe „Team“",
            description="Raum\n3",
            start="2026-12-07T09:00:00",
            end="2026-12-07T09:45:00",
            time_zone="America/New_York",
            rrule="FREQ=WEEKLY;COUNT=5",
            attendee_ids=[anna.pk, ben.pk],
            conference_url="https://meet.example.com/x",
            conference_provider="Teams",
            remind_minutes_before=15,
            client_id=client.pk,
        ),
    )
    frist = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Einspruch",
            kind="deadline",
            start="2026-12-10",
            all_day=True,
            legal_basis="§ 355 AO",
            criticality="critical",
            responsible_id=ben.pk,
            deputy_id=anna.pk,
            case_id=case.pk,
            trigger_date="2026-11-10",
            rule_code="einspruch_ao",
            pre_deadlines=[{"due_date": "2026-12-01", "note": "Entwurf"}],
        ),
    )
    services.update_event(
        as_anna,
        frist.pk,
        build(
            FiledEventUpdate,
            start="2026-12-11",
            reason_code="document_names_new_date",
            reason_params={"title": "Bescheid"},
        ),
    )
    done = services.create_event(
        as_anna, build(EventCreate, title="erledigt", kind="deadline", start="2026-12-20")
    )
    lifecycle.complete_deadline(
        as_anna, done.pk, build(DeadlineComplete, how="Einspruch eingelegt", link="https://example.com/d")
    )
    CalendarEvent.objects.filter(pk=plain.pk).update(created_by_service=ServicePrincipalFactory(name="Robot"))
    return [services.get_event(as_anna, e.pk) for e in (plain, series, frist, done)]


def test_event_records_are_byte_for_byte_the_builder(rows):
    for event in rows:
        assert same_bytes(event_record(event), old_event_record(event))
        assert same_bytes(c.EventOut.record(EventRow(event)), old_event_record(event))


def test_occurrence_records_are_byte_for_byte_the_builder(rows):
    series = rows[1]
    start = series.start + dt.timedelta(days=7)
    occurrence = Occurrence(series, start, start + (series.end - series.start))
    assert same_bytes(event_record(series, occurrence), old_event_record(series, occurrence))


def test_history_records_are_byte_for_byte_the_builder(rows):
    changes = list(DeadlineChange.objects.select_related("actor").order_by("id"))
    assert len(changes) > 5 and any(change.reason_code for change in changes)
    for change in changes:
        assert same_bytes(history_record(change), old_history_record(change))


def test_rest_answers_alike_from_the_model_and_from_the_old_record(rows):
    for event in rows:
        assert same_bytes(
            dump(c.EventResult, {"event": c.EventOut.of(EventRow(event))}),
            dump(c.EventResult, {"event": old_event_record(event)}),
        )
