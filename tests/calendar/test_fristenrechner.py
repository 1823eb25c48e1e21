"""The Fristenrechner in the Frist editor (its page half; the browser half is
tests/e2e/test_fristenrechner.py) and the short-notice Vorfrist rule of the service: a Frist due
so soon that the usual Vorfrist has passed gets one today, with a note saying why, never none."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.calendar import services
from apps.calendar.contracts import EventCreate
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from apps.deadlines.compute import is_working_day, shift_to_working_day

pytestmark = pytest.mark.django_db


def _frist(as_anna, due: dt.date, **values):
    return services.create_event(
        as_anna,
        build(EventCreate, title="Frist", kind="deadline", start=due.isoformat(), all_day=True, **values),
    )


def test_a_short_notice_frist_gets_a_vorfrist_today_with_the_reason(as_anna):
    today = timezone.localdate()
    frist = _frist(as_anna, today + dt.timedelta(days=2))
    (vorfrist,) = frist.pre_deadlines.all()
    assert vorfrist.due_date == today
    assert "Vorfrist" in vorfrist.note and re.search(r"\(\d\d\.\d\d\.\d{4}\)", vorfrist.note)
    due_today = _frist(as_anna, today)
    assert [p.due_date for p in due_today.pre_deadlines.all()] == [today]


def test_a_frist_far_enough_ahead_keeps_the_usual_vorfrist_without_a_note(as_anna):
    due, _d, _w = shift_to_working_day(timezone.localdate() + dt.timedelta(days=30))
    (vorfrist,) = _frist(as_anna, due).pre_deadlines.all()
    assert vorfrist.due_date <= due - dt.timedelta(days=7) and is_working_day(vorfrist.due_date)
    assert vorfrist.note == ""


def test_given_vorfristen_all_in_the_past_get_todays_added_none_asked_stays_none(as_anna):
    today = timezone.localdate()
    due = today + dt.timedelta(days=3)
    past = today - dt.timedelta(days=2)
    frist = _frist(as_anna, due, pre_deadlines=[{"due_date": past.isoformat(), "note": "Entwurf"}])
    rows = [(p.due_date, p.note) for p in frist.pre_deadlines.all()]
    assert rows[0] == (past, "Entwurf") and rows[1][0] == today and rows[1][1]
    assert not _frist(as_anna, due, pre_deadlines=[]).pre_deadlines.exists()  # deliberately none
    assert not _frist(as_anna, today - dt.timedelta(days=1)).pre_deadlines.exists()  # a past Frist


def _form(day: dt.date, **more) -> dict:
    return {"title": "Einspruch", "kind": "deadline", "start": f"{day.isoformat()}T00:00", "all_day": "on",
            "visibility": "shared", "criticality": "high", **more}  # fmt: skip


def test_the_editor_offers_the_fristenrechner(web):
    page = web.get(reverse("calendar:create"), {"kind": "deadline"}).content.decode()
    assert "data-fristenrechner" in page and reverse("deadlines:api-compute") in page
    assert 'value="einspruch_ao"' in page and 'name="posted_on"' in page and 'name="duration_amount"' in page
    assert "js/fristenrechner.js" in page and "onclick" not in page and "onchange" not in page


def test_the_rule_and_trigger_day_save_and_an_empty_vorfrist_field_means_the_rules(web):
    due, _d, _w = shift_to_working_day(timezone.localdate() + dt.timedelta(days=40))
    trigger = due - dt.timedelta(days=30)
    saved = web.post(reverse("calendar:create"), _form(due, rule_code="berufung_zpo", trigger_date=trigger))
    assert saved.status_code == 302
    frist = CalendarEvent.objects.get()
    assert (frist.rule_code, frist.trigger_date) == ("berufung_zpo", trigger)
    (vorfrist,) = frist.pre_deadlines.all()  # the rule's 7 days, not "no Vorfrist"
    assert due - dt.timedelta(days=11) <= vorfrist.due_date <= due - dt.timedelta(days=7)
    edit = web.get(reverse("calendar:detail", args=[frist.pk])).content.decode()
    assert 'value="berufung_zpo" selected' in edit and f'value="{trigger.isoformat()}"' in edit


def test_an_unknown_rule_is_a_field_error_on_the_form(web):
    due, _d, _w = shift_to_working_day(timezone.localdate() + dt.timedelta(days=40))
    refused = web.post(reverse("calendar:create"), _form(due, rule_code="erfunden"))
    assert refused.status_code == 200 and not CalendarEvent.objects.exists()
    assert refused.context["form"].errors["rule_code"]


def test_a_rule_that_does_not_apply_to_the_trigger_says_why(web):
    """What the form shows when the person says "posted" for a rule served by Zustellung."""
    answer = web.post(
        reverse("deadlines:api-compute"),
        {"rule": "berufung_zpo", "trigger_date": "2026-11-04", "posted": True},
        content_type="application/json",
    )
    assert answer.status_code == 400
    message = answer.json()["details"]["field_errors"]["posted"]
    assert "Berufungsfrist" in message and "Zustellung" in message
    ok = web.post(
        reverse("deadlines:api-compute"),
        {"rule": "einspruch_ao", "trigger_date": "2026-11-04", "posted": True},
        content_type="application/json",
    ).json()["deadline"]
    assert ok["start"] == "2026-11-09" and ok["end"] == "2026-12-09" and len(ok["steps"]) >= 3
