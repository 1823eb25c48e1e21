"""The .ics feed's VALARMs: Vorfristen and the due day ring for the Frist's responsible person and
deputy (not in everybody's calendar), an entry's own reminder rings for whoever sees it, and a
done Frist rings no more."""

import datetime as dt

import icalendar
import pytest
from django.urls import reverse

from apps.calendar import feed
from apps.calendar.models import CalendarEvent
from tests.factories import UserFactory
from tests.notifications.fristen_rows import OFFICE, frist

pytestmark = pytest.mark.django_db
DUE = dt.date.today() + dt.timedelta(days=20)


def alarms_in_feed(client, principal) -> dict[str, list]:
    _, token = feed.create_token(principal)
    response = client.get(reverse("calendar:feed", args=[token]))
    assert response.status_code == 200
    cal = icalendar.Calendar.from_ical(response.content)
    return {str(e["summary"]): e.walk("VALARM") for e in cal.walk("VEVENT")}


def test_vorfristen_and_the_due_day_ring_for_responsible_and_deputy(client, anna, ben, as_anna, as_ben):
    carla = UserFactory(email="carla@kanzlei.example")
    pre = [DUE - dt.timedelta(days=7), DUE - dt.timedelta(days=2)]
    frist("Einspruch Meier", DUE, responsible=anna, deputy=ben, pre=pre)
    for principal in (as_anna, as_ben):
        alarms = alarms_in_feed(client, principal)["Frist: Einspruch Meier"]
        triggers = sorted(a.decoded("trigger") for a in alarms)
        expected = [dt.datetime.combine(day, dt.time(8), tzinfo=OFFICE) for day in [*pre, DUE]]
        assert triggers == expected
        assert all(str(a["action"]) == "DISPLAY" for a in alarms)
        assert sorted(str(a["description"]) for a in alarms)[0].startswith("Frist heute: Einspruch Meier")
    from apps.accounts.principal import Principal

    assert alarms_in_feed(client, Principal.for_user(carla))["Frist: Einspruch Meier"] == []


def test_a_done_frist_rings_no_more(client, anna, as_anna):
    frist("Erledigt", DUE, responsible=anna, pre=[DUE - dt.timedelta(days=3)], status="done")
    assert alarms_in_feed(client, as_anna)["Frist: Erledigt"] == []


def test_an_entrys_own_reminder_is_a_relative_alarm(client, anna, as_anna):
    start = dt.datetime.combine(DUE, dt.time(10), tzinfo=OFFICE)
    CalendarEvent.objects.create(
        title="Mandantengespräch", start=start, end=start + dt.timedelta(hours=1), remind_minutes_before=30
    )
    (alarm,) = alarms_in_feed(client, as_anna)["Mandantengespräch"]
    assert alarm.decoded("trigger") == dt.timedelta(minutes=-30)


def test_the_feed_query_count_does_not_grow_with_vorfristen(client, anna, as_anna):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _, token = feed.create_token(as_anna)
    url = reverse("calendar:feed", args=[token])
    frist("Eine", DUE, responsible=anna, pre=[DUE - dt.timedelta(days=1)])
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for i in range(20):
        frist(f"Frist {i}", DUE + dt.timedelta(days=i), responsible=anna, pre=[DUE - dt.timedelta(days=2)])
    with CaptureQueriesContext(connection) as many:
        client.get(url)
    assert len(many) == len(few)
