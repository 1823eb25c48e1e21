"""In Chromium: dragging a Frist in the month view asks for confirmation and a reason; onto a
Sunday it warns and offers the next working day. Cancelling changes nothing; confirming moves
the Frist and the Fristenbuch records the reason."""

import datetime as dt

import pytest

from apps.accounts.principal import Principal
from apps.calendar import lifecycle, services
from apps.calendar.contracts import EventCreate
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from apps.deadlines.compute import is_working_day, shift_to_working_day
from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e


def test_dragging_a_frist_asks_for_a_reason_and_offers_the_working_day(server, page):
    user = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    due = dt.date.today() + dt.timedelta(days=3)
    while not is_working_day(due) or due.weekday() > 3:  # Mon–Thu: its Sunday is in the same row
        due += dt.timedelta(days=1)
    sunday = due + dt.timedelta(days=6 - due.weekday())
    shifted, _day, _why = shift_to_working_day(sunday)
    frist = services.create_event(
        Principal.for_user(user),
        build(EventCreate, title="Einspruch Meier", kind="deadline", start=due.isoformat(), all_day=True),
    )

    log_in(page, server, user.email)
    page.goto(f"{server}/kalender/?month={due:%Y-%m}")
    chip = page.locator(f'.cal-chip[data-event-id="{frist.pk}"]')
    chip.wait_for(timeout=5000)
    dialog = page.locator("#cal-move-dialog")

    chip.drag_to(page.locator(f'.cal-day[data-date="{sunday.isoformat()}"]'))
    dialog.wait_for(state="visible", timeout=5000)
    page.locator("#cal-move-dialog [data-move-warning]").wait_for(state="visible", timeout=5000)
    assert "Sonntag" in page.locator("#cal-move-dialog [data-move-warning]").inner_text()
    assert page.locator("#cal-move-dialog [name=use_shifted]").is_checked()
    page.locator("#cal-move-dialog button[value=cancel]").click()
    dialog.wait_for(state="hidden", timeout=3000)
    page.wait_for_timeout(500)
    assert lifecycle.due_day(CalendarEvent.objects.get(pk=frist.pk)) == due  # cancelled: unchanged

    chip.drag_to(page.locator(f'.cal-day[data-date="{sunday.isoformat()}"]'))
    dialog.wait_for(state="visible", timeout=5000)
    page.locator("#cal-move-dialog button[value=move]").click()  # no reason: the browser refuses
    assert dialog.is_visible()
    page.fill("#cal-move-reason", "Fristverlängerung gewährt")
    page.locator("#cal-move-dialog button[value=move]").click()
    wait_for(lambda: lifecycle.due_day(CalendarEvent.objects.get(pk=frist.pk)) == shifted, timeout=5)
    line = CalendarEvent.objects.get(pk=frist.pk).history.get(field="due", reason="Fristverlängerung gewährt")
    assert line.actor == user and line.new == shifted.isoformat()
    page.goto(f"{server}/kalender/?month={shifted:%Y-%m}")
    page.locator(
        f'.cal-day[data-date="{shifted.isoformat()}"] .cal-chip[data-event-id="{frist.pk}"]'
    ).wait_for(timeout=5000)
