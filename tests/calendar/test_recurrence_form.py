"""The entry editor's recurrence picker, reminder choices and attendee picker: the RRULE is built
on the server from the picker through `contracts.Recurrence` (a posted `rrule` is ignored), bad
combinations show every error at once and save nothing."""

import datetime as dt

import pytest
from django.urls import reverse

from apps.calendar.contracts import Recurrence
from apps.calendar.forms import EventForm, picker_values
from apps.calendar.models import CalendarEvent
from tests.calendar.conftest import BERLIN

pytestmark = pytest.mark.django_db

BASE = {"title": "Jour fixe", "kind": "event", "start": "2026-03-02T10:00", "end": "2026-03-02T11:00",
        "visibility": "shared", "criticality": "normal"}  # fmt: skip


def post(web, **fields):
    return web.post(reverse("calendar:create"), {**BASE, **fields})


def test_weekly_every_two_weeks_ten_times(web):
    response = post(web, repeat="weekly", repeat_interval="2", repeat_count="10")
    assert response.status_code == 302
    event = CalendarEvent.objects.get()
    assert event.rrule == "FREQ=WEEKLY;INTERVAL=2;COUNT=10"
    assert event.recurrence_end.astimezone(BERLIN) == dt.datetime(2026, 7, 6, 11, tzinfo=BERLIN)


def test_monthly_until_a_day_includes_that_day(web):
    assert post(web, repeat="monthly", repeat_interval="1", repeat_until="2026-06-02").status_code == 302
    event = CalendarEvent.objects.get()
    assert event.rrule.startswith("FREQ=MONTHLY;UNTIL=2026060")
    assert event.recurrence_end.astimezone(BERLIN).date() == dt.date(2026, 6, 2)


def test_none_saves_no_rule_and_a_posted_rrule_is_ignored(web):
    assert post(web, repeat="none", rrule="FREQ=SECONDLY;COUNT=99999").status_code == 302
    assert CalendarEvent.objects.get().rrule == ""
    # no picker at all (older clients, scripts): no repetition either
    assert post(web, title="Zweiter", rrule="FREQ=DAILY;COUNT=3").status_code == 302
    assert CalendarEvent.objects.get(title="Zweiter").rrule == ""


def test_every_bad_recurrence_error_at_once_and_nothing_saved(web):
    response = post(
        web, title="", repeat="daily", repeat_interval="0", repeat_until="2026-02-01", repeat_count="9999"
    )
    assert response.status_code == 200
    form = response.context["form"]
    assert not CalendarEvent.objects.exists()
    assert set(form.errors) >= {"title", "repeat_interval", "repeat_until", "repeat_count"}
    assert len(form.errors["repeat_count"]) == 2  # over the limit and both ends given
    body = response.content.decode()
    assert "nicht beides" in body and "vor ihrem Beginn" in body  # German messages, on the page


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"repeat_interval": "0", "repeat_count": "3"}, "repeat_interval"),
        ({"repeat_interval": "100", "repeat_count": "3"}, "repeat_interval"),
        ({"repeat_until": "2026-03-01"}, "repeat_until"),
        ({"repeat_until": "2026-04-01", "repeat_count": "3"}, "repeat_count"),
        ({"repeat_count": "501"}, "repeat_count"),
        ({"repeat_until": "2030-01-01"}, "repeat_until"),  # daily for years: over 500 occurrences
        ({}, "repeat_until"),  # a series must end
        ({"repeat_count": "abc"}, "repeat_count"),
    ],
)
def test_invalid_recurrence_is_refused(web, fields, field):
    response = post(web, repeat="daily", **fields)
    assert response.status_code == 200 and field in response.context["form"].errors
    assert not CalendarEvent.objects.exists()


def test_unknown_frequency_is_refused(web):
    response = post(web, repeat="secondly", repeat_count="3")
    assert "repeat" in response.context["form"].errors and not CalendarEvent.objects.exists()


def test_the_model_builds_the_rule_tools_and_pages_share():
    picked = Recurrence.model_validate({"frequency": "yearly", "count": 5, "starts_on": dt.date(2026, 3, 2)})
    assert picked.service_values() == {"rrule": "FREQ=YEARLY;COUNT=5"}
    with pytest.raises(ValueError):
        Recurrence.model_validate({"frequency": "weekly", "count": 3, "extra": "FREQ=SECONDLY"})


def test_picker_reads_stored_rules():
    assert picker_values("", "Europe/Berlin")["repeat"] == "none"
    assert picker_values("FREQ=WEEKLY;INTERVAL=2;COUNT=4", "Europe/Berlin") == {
        "repeat": "weekly", "repeat_interval": "2", "repeat_until": "", "repeat_count": "4"
    }  # fmt: skip
    until = picker_values("FREQ=DAILY;UNTIL=20260601T215959Z", "Europe/Berlin")
    assert until["repeat_until"] == "2026-06-01"
    assert picker_values("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4", "Europe/Berlin")["repeat"] == "custom"


def _edit_form(event, **changes):
    values = EventForm.values_of(event)
    form = {}
    for name, value in values.items():
        if name in ("attendees", "pre_deadlines"):
            continue
        form[name] = value
        form[f"base_{name}"] = value
    form.update(changes)
    return {k: v for k, v in form.items() if v is not None}


def test_edit_keeps_a_custom_rule_and_changes_a_simple_one(web, make_event, soon):
    custom = make_event(
        "Custom", rrule="FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4", recurrence_end=soon + dt.timedelta(days=30)
    )
    page = web.get(reverse("calendar:detail", args=[custom.pk])).content.decode()
    assert "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4" in page  # the custom choice names the rule
    response = web.post(reverse("calendar:detail", args=[custom.pk]), _edit_form(custom, location="Raum 2"))
    assert response.status_code == 302
    custom.refresh_from_db()
    assert custom.rrule == "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4" and custom.location == "Raum 2"

    response = web.post(
        reverse("calendar:detail", args=[custom.pk]),
        _edit_form(custom, repeat="daily", repeat_interval="1", repeat_count="3"),
    )
    assert response.status_code == 302
    custom.refresh_from_db()
    assert custom.rrule == "FREQ=DAILY;COUNT=3"

    response = web.post(reverse("calendar:detail", args=[custom.pk]), _edit_form(custom, repeat="none"))
    assert response.status_code == 302
    custom.refresh_from_db()
    assert custom.rrule == "" and custom.recurrence_end is None


def test_custom_is_no_choice_for_entries_without_such_a_rule(web):
    response = post(web, repeat="custom")
    assert "repeat" in response.context["form"].errors and not CalendarEvent.objects.exists()


def test_a_deadline_never_repeats_from_the_picker(web):
    response = post(web, kind="deadline", start="2026-03-04T12:00", end="", repeat="weekly", repeat_count="3")
    assert response.status_code == 302
    assert CalendarEvent.objects.get().rrule == ""


def test_reminder_choices(web, make_event):
    assert post(web, remind_minutes_before="60").status_code == 302
    assert CalendarEvent.objects.get().remind_minutes_before == 60
    refused = post(web, title="x", remind_minutes_before="7")
    assert "remind_minutes_before" in refused.context["form"].errors
    body = web.get(reverse("calendar:create")).content.decode()
    assert "15 Minuten vorher" in body and "1 Stunde vorher" in body and "1 Tag vorher" in body
    # an existing odd lead time (set through the API) stays selectable
    odd = make_event("Odd", remind_minutes_before=45)
    assert "45 Minuten vorher" in web.get(reverse("calendar:detail", args=[odd.pk])).content.decode()


def test_attendee_picker_renders_checkboxes_with_search(web, ben):
    body = web.get(reverse("calendar:create")).content.decode()
    assert "data-attendee-search" in body and 'type="checkbox" name="attendees"' in body
    assert post(web, attendees=[str(ben.pk)]).status_code == 302
    assert list(CalendarEvent.objects.get().attendees.all()) == [ben]
