"""The demo office gets a month of appointments and a handful of Fristen."""

import pytest
from django.core.management import call_command

from apps.calendar import lifecycle
from apps.calendar.models import CalendarEvent
from apps.deadlines.compute import is_working_day

pytestmark = pytest.mark.django_db


def test_bootstrap_loads_the_calendar_demo(settings):
    settings.CLAPILOT_ADMIN_EMAIL = "chef@kanzlei.example"
    settings.CLAPILOT_ADMIN_PASSWORD = "a-long-configured-secret"
    settings.CLAPILOT_DEMO_DATA = True
    call_command("bootstrap")
    events = CalendarEvent.objects.all()
    assert events.filter(kind="event").count() >= 8
    assert events.filter(kind="deadline").count() >= 3
    assert events.filter(
        title__startswith="Umsatzsteuer-Voranmeldung", start__day__in=[10, 11, 12, 13]
    ).exists()
    for frist in events.filter(kind="deadline"):
        # No demo Frist on a weekend or holiday; each has people and a Vorfrist.
        assert is_working_day(lifecycle.due_day(frist)), frist
        assert frist.responsible and frist.deputy and frist.pre_deadlines.exists(), frist
        assert frist.history.filter(field="due").exists()
    assert events.exclude(rrule="").filter(title="Team-Meeting Kanzlei").exists()
    assert events.filter(visibility="private").count() == 1
    assert events.filter(title="Termin beim Finanzamt München: Betriebsprüfung Schreinerei Vogel").exists()
