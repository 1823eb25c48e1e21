"""The entry editor validates through the operations' input models: a new entry as an
`EventCreate`, an edit as an `EventUpdate` of the changed fields; the model's errors show on the
editor field the person typed into."""

import pytest
from django.http import QueryDict
from django.urls import reverse

from apps.calendar.contracts import EventCreate, EventUpdate
from apps.calendar.forms import EventEditForm, EventForm
from apps.calendar.models import CalendarEvent

pytestmark = pytest.mark.django_db

BASE = {"title": "Jour fixe", "kind": "event", "start": "2026-03-02T10:00", "end": "2026-03-02T11:00",
        "visibility": "shared", "criticality": "normal"}  # fmt: skip


def form(data, people=(), **kwargs):
    return EventForm(data, people=list(people), **kwargs)


def test_a_new_entry_is_validated_as_event_create(ben):
    f = form({**BASE, "attendees": [str(ben.pk)], "remind_minutes_before": "60", "location": "Büro"}, [ben])
    assert f.is_valid(), f.errors
    assert isinstance(f.validated, EventCreate)
    assert f.validated.attendee_ids == [ben.pk] and f.validated.remind_minutes_before == 60
    assert (f.validated.title, f.validated.location, f.validated.rrule) == ("Jour fixe", "Büro", "")


def test_the_contracts_refusal_is_on_the_field_typed_into():
    f = form({**BASE, "conference_url": "javascript:alert(1)"})
    assert not f.is_valid()
    assert list(f.errors) == ["conference_url"]
    assert not hasattr(f, "validated")


def test_a_vorfrist_outside_the_date_bound_is_on_the_vorfristen_field():
    """`pre_deadlines.0.due_date` in the contract: shown on the Vorfristen field, not above the form."""
    frist = {**BASE, "kind": "deadline", "start": "2026-03-02T00:00", "pre_deadlines": "1500-01-01"}
    f = form(frist)
    assert not f.is_valid()
    assert "pre_deadlines" in f.errors and not f.non_field_errors()


def test_an_edit_is_validated_as_the_changed_fields(anna, soon):
    event = CalendarEvent.objects.create(
        title="Termin", start=soon, end=soon.replace(hour=11), owner=anna, location="Büro"
    )
    initial = EventForm.values_of(event)
    data = QueryDict(mutable=True)
    data.update({**{k: v for k, v in initial.items() if k != "attendees"}, "title": "Neuer Titel"})
    data.update({f"base_{k}": v for k, v in initial.items() if k != "attendees"})
    f = EventEditForm(data, people=[], event=event)
    assert f.is_valid(), f.errors
    assert isinstance(f.validated, EventUpdate)
    assert f.validated.changes() == {"title": "Neuer Titel"}


def test_a_bad_create_page_post_saves_nothing_and_names_the_field(web):
    response = web.post(reverse("calendar:create"), {**BASE, "conference_url": "ftp://example.com"})
    assert response.status_code == 200
    assert "conference_url" in response.context["form"].errors
    assert not CalendarEvent.objects.exists()
