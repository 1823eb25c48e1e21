"""The Kalender pages: render, search, write through the services, constant query counts."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.calendar.models import CalendarEvent
from tests.calendar.conftest import BERLIN

pytestmark = pytest.mark.django_db


def test_month_view_renders_grid_navigation_and_entries(web, make_event, soon):
    make_event("Mandantengespräch Hoffmann", start=soon)
    make_event("Einspruchsfrist Meier", start=soon, kind="deadline", minutes=0, criticality="critical")
    response = web.get(reverse("calendar:index"), {"month": soon.strftime("%Y-%m")})
    body = response.content.decode()
    assert response.status_code == 200
    assert "Mandantengespräch Hoffmann" in body and "Einspruchsfrist Meier" in body
    assert body.count('<td class="cal-day') == 42 and "is-critical" in body
    assert 'hx-trigger="clapilot:refresh"' in body and 'data-refresh-topic="calendar"' in body
    prev_month = (soon.date().replace(day=1) - dt.timedelta(days=1)).strftime("%Y-%m")
    assert f"?month={prev_month}" in body


def test_month_view_shows_recurring_occurrences(web, make_event, soon):
    make_event("Team-Meeting", rrule="FREQ=DAILY;COUNT=3", recurrence_end=soon + dt.timedelta(days=3))
    body = web.get(reverse("calendar:index"), {"month": soon.strftime("%Y-%m")}).content.decode()
    tomorrow = soon.date() + dt.timedelta(days=1)
    if tomorrow.month == soon.month:
        assert body.count("Team-Meeting") >= 2


def test_week_agenda_and_deadlines_render(web, make_event, soon):
    make_event("Wochen-Termin", start=soon)
    make_event("Frist USt", start=soon, kind="deadline", minutes=0, legal_basis="§ 18 UStG")
    week = web.get(reverse("calendar:week"), {"week": soon.date().isoformat()}).content.decode()
    assert "Wochen-Termin" in week
    agenda = web.get(reverse("calendar:agenda")).content.decode()
    assert "Wochen-Termin" in agenda and 'id="subscribe"' in agenda
    assert "Frist USt" not in web.get(reverse("calendar:agenda"), {"q": "wochen"}).content.decode()
    deadlines = web.get(reverse("calendar:deadlines")).content.decode()
    assert "Frist USt" in deadlines and "§ 18 UStG" in deadlines and "Wochen-Termin" not in deadlines


def test_views_query_counts_are_constant(web, make_event, soon, ben):
    def queries(url, params):
        with CaptureQueriesContext(connection) as ctx:
            assert web.get(url, params).status_code == 200
        return len(ctx.captured_queries)

    month = (reverse("calendar:index"), {"month": soon.strftime("%Y-%m")})
    week = (reverse("calendar:week"), {"week": soon.date().isoformat()})
    fristen = (reverse("calendar:deadlines"), {})
    for i in range(2):
        make_event(f"a{i}").attendees.add(ben)
        make_event(f"f{i}", kind="deadline", minutes=0)
    few = [queries(*month), queries(*week), queries(*fristen)]
    for i in range(30):
        make_event(f"b{i}", start=soon + dt.timedelta(hours=i % 8)).attendees.add(ben)
        make_event(f"g{i}", kind="deadline", minutes=0)
    assert [queries(*month), queries(*week), queries(*fristen)] == few


def test_create_form_saves_and_shows_field_errors(web):
    form = {"title": "Finanzamt", "kind": "event", "start": "2026-12-03T09:00", "end": "2026-12-03T08:00",
            "visibility": "shared", "criticality": "normal"}  # fmt: skip
    bad = web.post(reverse("calendar:create"), form)
    assert bad.status_code == 200 and 'class="error"' in bad.content.decode()
    assert not CalendarEvent.objects.exists()
    form["end"] = "2026-12-03T10:30"
    ok = web.post(reverse("calendar:create"), form)
    assert ok.status_code == 302
    event = CalendarEvent.objects.get()
    assert event.start == dt.datetime(2026, 12, 3, 9, tzinfo=BERLIN) and event.source_origin == "manual"
    assert web.get(reverse("calendar:create"), {"date": "2026-12-03"}).status_code == 200


def test_edit_saves_only_changed_fields(web, make_event, soon):
    event = make_event("Original", location="Raum 1")
    page = web.get(reverse("calendar:detail", args=[event.pk]))
    assert page.status_code == 200 and "Original" in page.content.decode()
    CalendarEvent.objects.filter(pk=event.pk).update(location="Raum 9")  # meanwhile the copilot
    local = soon.strftime("%Y-%m-%dT%H:%M")
    end = (soon + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    form = {"title": "Neuer Titel", "base_title": "Original", "kind": "event", "base_kind": "event",
            "start": local, "base_start": local, "end": end, "base_end": end, "location": "Raum 1",
            "base_location": "Raum 1", "visibility": "shared", "base_visibility": "shared",
            "criticality": "normal", "base_criticality": "normal"}  # fmt: skip
    assert web.post(reverse("calendar:detail", args=[event.pk]), form).status_code == 302
    event.refresh_from_db()
    assert event.title == "Neuer Titel" and event.location == "Raum 9"


def test_move_endpoint_and_delete(web, make_event, soon):
    event = make_event("ziehen")
    target = soon.date() + dt.timedelta(days=2)
    moved = web.post(
        reverse("calendar:move", args=[event.pk]),
        {"from_date": soon.date().isoformat(), "to_date": target.isoformat()},
    )
    assert moved.status_code == 200
    event.refresh_from_db()
    assert event.start == soon + dt.timedelta(days=2) and event.end - event.start == dt.timedelta(hours=1)
    bad = web.post(reverse("calendar:move", args=[event.pk]), {"from_date": "x", "to_date": "y"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_input"
    assert web.post(reverse("calendar:delete", args=[event.pk])).status_code == 302
    assert not CalendarEvent.objects.exists()


def test_other_users_private_event_is_404_and_hidden(client, ben, make_event, anna, soon):
    event = make_event("geheim", visibility="private", owner=anna)
    client.force_login(ben)
    assert client.get(reverse("calendar:detail", args=[event.pk])).status_code == 404
    assert client.post(reverse("calendar:delete", args=[event.pk])).status_code == 404
    assert (
        client.post(
            reverse("calendar:move", args=[event.pk]), {"from_date": "2026-01-01", "to_date": "2026-01-02"}
        ).status_code
        == 404
    )
    assert (
        "geheim"
        not in client.get(reverse("calendar:index"), {"month": soon.strftime("%Y-%m")}).content.decode()
    )
    assert CalendarEvent.objects.filter(pk=event.pk).exists()


def test_pages_need_a_login(client):
    assert client.get(reverse("calendar:index")).status_code == 302


def test_pages_speak_german_by_default(web):
    body = web.get(reverse("calendar:index")).content.decode()
    assert "Monat" in body and "Fristen" in body and "Neuer Eintrag" in body
