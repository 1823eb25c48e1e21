"""Kalender services: visibility, audiences, validation, recurrence, deadlines."""

import datetime as dt

import pytest

from apps.calendar import services
from apps.calendar.contracts import EventCreate, EventFilter, EventMove, EventUpdate
from apps.calendar.errors import EventNotFound
from apps.calendar.models import CalendarEvent
from apps.core.errors import Forbidden, InvalidInput, VersionConflict
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from tests.calendar.conftest import BERLIN

pytestmark = pytest.mark.django_db


def test_create_shared_event_publishes_one_all_audience_row(
    as_anna, anna, soon, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        event = services.create_event(
            as_anna,
            build(
                EventCreate,
                title="Mandantengespräch",
                start=soon.isoformat(),
                location="Raum 1",
                attendee_ids=[anna.pk],
            ),
        )
    assert event.end - event.start == dt.timedelta(hours=1)  # default duration
    assert event.created_by == anna and event.owner == anna and event.source_origin == "manual"
    row = MutationEvent.objects.get()
    assert row.audience == "all" and row.topic == "calendar.event.updated"
    upsert = row.ui_actions[0]
    assert upsert["type"] == "upsert" and upsert["list"] == "calendar"
    assert upsert["announce_key"] == "calendar.event.created"
    assert upsert["record"]["location"] == "Raum 1"
    assert "conference_url" in upsert["record"] and "countdown_days" in upsert["record"]


def test_private_event_reaches_only_its_owner(as_anna, as_ben, as_robot, anna, soon):
    event = services.create_event(
        as_anna, build(EventCreate, title="Zahnarzt", start=soon.isoformat(), visibility="private")
    )
    row = MutationEvent.objects.get()
    assert row.audience == "user" and row.user_id == anna.pk
    for other in (as_ben, as_robot):
        with pytest.raises(EventNotFound):
            services.get_event(other, event.pk)
        assert services.list_events(other)[1] == 0
    assert services.list_events(as_anna)[1] == 1


def test_making_a_shared_event_private_removes_it_for_everyone_else(as_anna, anna, soon):
    event = services.create_event(as_anna, build(EventCreate, title="Team", start=soon.isoformat()))
    MutationEvent.objects.all().delete()
    services.update_event(as_anna, event.pk, build(EventUpdate, **{"visibility": "private"}))
    removal, upsert = MutationEvent.objects.order_by("id")
    assert removal.audience == "all_except" and removal.user_id == anna.pk
    assert removal.ui_actions == [
        {
            "type": "remove",
            "list": "calendar",
            "record_id": str(event.pk),
            "announce_key": "calendar.event.removed",
        }
    ]
    assert upsert.audience == "user" and upsert.user_id == anna.pk


def test_only_the_owner_or_a_person_can_make_entries_private(as_anna, as_ben, as_robot, soon):
    event = services.create_event(as_anna, build(EventCreate, title="Team", start=soon.isoformat()))
    with pytest.raises(Forbidden):
        services.update_event(as_ben, event.pk, build(EventUpdate, **{"visibility": "private"}))
    with pytest.raises(InvalidInput):
        services.create_event(
            as_robot, build(EventCreate, title="x", start=soon.isoformat(), visibility="private")
        )


def test_end_before_start_is_a_field_error_and_writes_nothing(as_anna, soon):
    with pytest.raises(InvalidInput) as err:
        services.create_event(
            as_anna,
            build(
                EventCreate, title="x", start=soon.isoformat(), end=(soon - dt.timedelta(hours=1)).isoformat()
            ),
        )
    assert err.value.code == "invalid_input" and "end" in err.value.details["field_errors"]
    assert not CalendarEvent.objects.exists() and not MutationEvent.objects.exists()


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"title": ""}, "title"),
        ({"start": "morgen"}, "start"),
        ({"time_zone": "Mars/Olympus"}, "time_zone"),
        ({"kind": "party"}, "kind"),
        ({"criticality": "egal"}, "criticality"),
        ({"conference_url": "javascript:alert(1)"}, "conference_url"),
        ({"attendee_ids": [987654]}, "attendee_ids"),
        ({"rrule": "FREQ=WEEKLY"}, "rrule"),
        ({"rrule": "FREQ=SECONDLY;COUNT=3"}, "rrule"),
        ({"rrule": "FREQ=NEVER;COUNT=3"}, "rrule"),
        ({"rrule": "FREQ=DAILY;COUNT=100000"}, "rrule"),
        ({"remind_minutes_before": -5}, "remind_minutes_before"),
    ],
)
def test_bad_values_name_their_field(as_anna, soon, values, field):
    args = {"title": "Termin", "start": soon.isoformat(), **values}
    with pytest.raises(InvalidInput) as err:
        services.create_event(as_anna, build(EventCreate, **args))
    assert field in err.value.details["field_errors"]
    assert not CalendarEvent.objects.exists()


def test_unbounded_rrule_is_accepted_with_a_bound(as_anna, soon):
    event = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Jour fixe",
            start=soon.isoformat(),
            rrule="RRULE:FREQ=WEEKLY",
            recurrence_until=(soon.date() + dt.timedelta(days=21)).isoformat(),
        ),
    )
    assert event.rrule.startswith("FREQ=WEEKLY;UNTIL=")
    _occurrences, total = services.list_events(
        as_anna, build(EventFilter, start=soon.isoformat(), end=(soon + dt.timedelta(days=60)).isoformat())
    )
    assert total == 4  # day 0, 7, 14, 21


def test_recurrence_expands_in_window_and_keeps_local_time_across_dst(as_anna):
    start = dt.datetime(2026, 3, 16, 9, 0, tzinfo=BERLIN)  # before the switch to summer time
    services.create_event(
        as_anna,
        build(
            EventCreate, title="Team-Meeting", start=start.isoformat(), rrule="FREQ=WEEKLY;BYDAY=MO;COUNT=10"
        ),
    )
    found, total = services.list_events(
        as_anna, build(EventFilter, start="2026-03-20T00:00:00+01:00", end="2026-04-14T00:00:00+02:00")
    )
    assert total == 4
    assert [o.start.astimezone(BERLIN).hour for o in found] == [9, 9, 9, 9]
    assert [o.start.date().isoformat() for o in found] == [
        "2026-03-23",
        "2026-03-30",
        "2026-04-06",
        "2026-04-13",
    ]
    assert (
        services.list_events(
            as_anna, build(EventFilter, start="2026-06-01T00:00:00+02:00", end="2026-07-01T00:00:00+02:00")
        )[1]
        == 0
    )


def test_list_events_filters_by_kind_query_and_paginates(as_anna, make_event, soon):
    for i in range(5):
        make_event(f"Mandantengespräch Meier {i}", start=soon + dt.timedelta(hours=i))
    make_event("Umsatzsteuer", kind="deadline", minutes=0)
    page, total = services.list_events(as_anna, build(EventFilter, query="meier", limit=2, offset=2))
    assert total == 5 and len(page) == 2 and page[0].event.title.endswith("2")
    assert services.list_events(as_anna, build(EventFilter, kind="deadline"))[1] == 1
    with pytest.raises(InvalidInput):
        services.list_events(
            as_anna, build(EventFilter, start="2026-01-01T00:00:00+01:00", end="2025-01-01T00:00:00+01:00")
        )


def test_all_day_deadline_countdown_and_urgency_order(as_anna):
    today = dt.datetime.now(BERLIN).date()
    late = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Jahresabschluss",
            kind="deadline",
            all_day=True,
            start=(today + dt.timedelta(days=20)).isoformat(),
        ),
    )
    soon = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Einspruchsfrist",
            kind="deadline",
            all_day=True,
            start=(today + dt.timedelta(days=3)).isoformat(),
            criticality="critical",
            legal_basis="§ 355 AO",
        ),
    )
    assert soon.end - soon.start == dt.timedelta(days=1)
    assert [e.pk for e in services.list_deadlines(as_anna)] == [soon.pk, late.pk]
    from apps.calendar.records import event_record

    record = event_record(soon)
    assert record["due"] == record["start"] and record["countdown_days"] == 3
    assert record["is_critical_soon"] is True and record["legal_basis"] == "§ 355 AO"
    assert event_record(late)["is_critical_soon"] is False


def test_partial_update_keeps_duration_and_other_fields(as_anna, soon):
    event = services.create_event(
        as_anna,
        build(
            EventCreate,
            title="Termin",
            start=soon.isoformat(),
            end=(soon + dt.timedelta(minutes=90)).isoformat(),
            location="A",
        ),
    )
    later = soon + dt.timedelta(days=2)
    updated = services.update_event(as_anna, event.pk, build(EventUpdate, **{"start": later.isoformat()}))
    assert updated.start == later and updated.end - updated.start == dt.timedelta(minutes=90)
    assert updated.location == "A" and updated.version == 2
    with pytest.raises(VersionConflict):
        services.update_event(as_anna, event.pk, build(EventUpdate, **{"title": "alt"}, expected_version=1))


def test_move_by_days_keeps_time_and_duration(as_anna, soon):
    event = services.create_event(as_anna, build(EventCreate, title="Termin", start=soon.isoformat()))
    moved = services.move_event(
        as_anna,
        event.pk,
        build(
            EventMove,
            from_date=soon.date().isoformat(),
            to_date=(soon.date() + dt.timedelta(days=3)).isoformat(),
        ),
    )
    assert moved.start == soon + dt.timedelta(days=3) and moved.end - moved.start == dt.timedelta(hours=1)


def test_delete_publishes_a_removal(as_anna, soon):
    event = services.create_event(as_anna, build(EventCreate, title="Termin", start=soon.isoformat()))
    services.delete_event(as_anna, event.pk)
    last = MutationEvent.objects.order_by("-id").first()
    assert last.audience == "all" and last.ui_actions[0]["type"] == "remove"
    assert last.ui_actions[0]["announce_key"] == "calendar.event.deleted"
    assert not CalendarEvent.objects.exists()


def test_naive_times_are_read_in_the_entry_time_zone(as_anna):
    event = services.create_event(as_anna, build(EventCreate, title="Termin", start="2026-12-01T10:00"))
    assert event.start == dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)
