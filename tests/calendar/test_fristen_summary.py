"""The Fristen summary of one person (the start page's figures) runs through a statement compiled
once per day and time zone (apps.core.db.prepared): it counts exactly what the general query
counts, for whoever asks, and a new day counts anew."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import fristen
from tests.notifications.fristen_rows import frist

pytestmark = pytest.mark.django_db


def general(principal: Principal, person_id: int) -> dict:
    """The summary as the Fristenkontrolle page counts it: one aggregate, built anew."""
    filters = fristen.FristenFilter(person_id=person_id)
    today = fristen.today_for(principal)
    return fristen._narrowed(principal, filters).aggregate(
        **fristen._summary_counts(today, principal.time_zone)
    )


def test_a_persons_summary_counts_what_the_general_query_counts(anna, ben):
    today = timezone.localdate()
    frist("Überfällig", today - dt.timedelta(days=2), responsible=anna, pre=[today], criticality="high")
    frist("Heute", today, responsible=ben, deputy=anna, pre=[today, today - dt.timedelta(days=1)])
    frist("Später", today + dt.timedelta(days=40), responsible=anna)
    frist("Erledigt", today - dt.timedelta(days=1), responsible=anna, status="done")
    frist("Bens private", today - dt.timedelta(days=1), responsible=anna, visibility="private", owner=ben)
    frist("Annas private", today, responsible=anna, visibility="private", owner=anna)
    zero = {"open": 0, "overdue": 0, "this_week": 0, "critical": 0, "pre_deadlines_today": 0}
    for viewer in (anna, ben):
        principal = Principal.for_user(viewer)
        for person in (anna, ben):
            counted = fristen.summary(principal, fristen.FristenFilter(person_id=person.pk))
            assert counted == general(principal, person.pk), (viewer, person)
    as_anna = Principal.for_user(anna)
    mine = fristen.summary(as_anna, fristen.FristenFilter(person_id=anna.pk))
    assert mine["open"] == 4 and mine["overdue"] == 1 and mine["pre_deadlines_today"] == 2
    assert fristen.summary(Principal.for_user(ben), fristen.FristenFilter(person_id=ben.pk))["overdue"] == 0
    nobody = fristen.FristenFilter(person_id=anna.pk + ben.pk + 1000)
    assert fristen.summary(as_anna, nobody) == zero  # one row of zeros, not none


def test_a_new_day_is_counted_anew(anna, monkeypatch):
    today = timezone.localdate()
    frist("Morgen", today + dt.timedelta(days=1), responsible=anna)
    principal = Principal.for_user(anna)
    mine = fristen.FristenFilter(person_id=anna.pk)
    assert fristen.summary(principal, mine)["overdue"] == 0
    later = timezone.now() + dt.timedelta(days=3)
    monkeypatch.setattr(fristen.timezone, "now", lambda: later)
    assert fristen.summary(principal, mine)["overdue"] == 1
    assert fristen.summary(principal, mine) == general(principal, anna.pk)
