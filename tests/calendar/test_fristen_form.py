"""The entry editor for Fristen: a due date on a weekend or holiday warns and offers the shifted
day; the Frist fields (responsible, deputy, Vorfristen) save; moving needs a reason."""

import datetime as dt

import pytest
from django.urls import reverse

from apps.calendar import lifecycle, services
from apps.calendar.contracts import EventCreate
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from apps.deadlines.compute import shift_to_working_day

pytestmark = pytest.mark.django_db


def _next_sunday() -> dt.date:
    day = dt.date.today() + dt.timedelta(days=14)
    return day + dt.timedelta(days=(6 - day.weekday()) % 7)


def _form(day: dt.date, **more) -> dict:
    return {"title": "Einspruch", "kind": "deadline", "start": f"{day.isoformat()}T00:00", "all_day": "on",
            "visibility": "shared", "criticality": "high", **more}  # fmt: skip


def test_a_frist_on_a_sunday_warns_and_offers_the_working_day(web):
    sunday = _next_sunday()
    shifted, _day, _why = shift_to_working_day(sunday)
    warned = web.post(reverse("calendar:create"), _form(sunday))
    html = warned.content.decode()
    assert warned.status_code == 200 and not CalendarEvent.objects.exists()
    assert "Sonntag" in html and f'name="shift_to" value="{shifted.isoformat()}"' in html
    taken = web.post(reverse("calendar:create"), _form(sunday, shift_to=shifted.isoformat()))
    assert taken.status_code == 302
    assert lifecycle.due_day(CalendarEvent.objects.get()) == shifted


def test_the_person_may_keep_a_non_working_day(web):
    sunday = _next_sunday()
    assert web.post(reverse("calendar:create"), _form(sunday, keep_non_working_day="on")).status_code == 302
    assert lifecycle.due_day(CalendarEvent.objects.get()) == sunday


def test_appointments_on_a_sunday_are_not_warned(web):
    sunday = _next_sunday()
    form = {
        **_form(sunday),
        "kind": "event",
        "start": f"{sunday}T10:00",
        "end": f"{sunday}T11:00",
        "all_day": "",
    }
    assert web.post(reverse("calendar:create"), form).status_code == 302


def test_the_frist_fields_save(web, anna, ben):
    day, _d, _w = shift_to_working_day(_next_sunday())
    vorfrist = day - dt.timedelta(days=3)
    form = _form(
        day, responsible=str(ben.pk), deputy=str(anna.pk), pre_deadlines=vorfrist.strftime("%d.%m.%Y")
    )
    assert web.post(reverse("calendar:create"), form).status_code == 302
    frist = CalendarEvent.objects.get()
    assert (frist.responsible, frist.deputy) == (ben, anna)
    assert list(frist.pre_deadlines.values_list("due_date", flat=True)) == [vorfrist]
    bad = web.post(reverse("calendar:create"), _form(day, pre_deadlines="morgen"))
    assert bad.status_code == 200 and CalendarEvent.objects.count() == 1


def test_moving_on_the_detail_page_needs_a_reason_and_shows_the_history(web, as_anna):
    day, _d, _w = shift_to_working_day(_next_sunday())
    frist = services.create_event(
        as_anna, build(EventCreate, title="Einspruch", kind="deadline", start=day.isoformat(), all_day=True)
    )
    page = web.get(reverse("calendar:detail", args=[frist.pk]))
    assert page.status_code == 200 and "Fristenbuch" in page.content.decode()
    assert "Eintrag löschen" not in page.content.decode()  # a Frist is cancelled, never deleted
    later, _d, _w = shift_to_working_day(day + dt.timedelta(days=7))
    current = dict(page.context["form"].initial)  # the fields and their base_ copies, as the page sent
    moved = {**current, "start": f"{later.isoformat()}T00:00", "end": f"{later.isoformat()}T00:00"}
    refused = web.post(reverse("calendar:detail", args=[frist.pk]), moved)
    assert refused.status_code == 200 and refused.context["form"].errors.get("reason")
    assert lifecycle.due_day(CalendarEvent.objects.get(pk=frist.pk)) == day
    saved = web.post(reverse("calendar:detail", args=[frist.pk]), {**moved, "reason": "Fristverlängerung"})
    assert saved.status_code == 302
    assert frist.history.filter(field="due", reason="Fristverlängerung").exists()
