"""In Chromium: the month view is open; `calendar_update_event` through the tool API (an API key,
POST /api/v1/tools/execute) moves the entry to another day without a reload, keeping its client;
dragging it to a third day persists through the move endpoint."""

import datetime as dt
import zoneinfo

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.calendar import services
from apps.calendar.contracts import EventCreate
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from tests.e2e.helpers import execute_tool, log_in
from tests.factories import ClientFactory, UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


def test_event_moves_live_and_drag_persists(server, page):
    user = UserFactory(email="anna@kanzlei.example", role="admin", is_superuser=True)
    _, key = keys.create_api_key(Principal.for_user(user), name="e2e", scopes=["tools:execute"])
    meier = ClientFactory(name="Meier GmbH", client_number="10003")
    month = dt.date(2026, 12, 1)
    start = dt.datetime(2026, 12, 8, 10, tzinfo=BERLIN)
    event = services.create_event(
        Principal.for_user(user),
        build(EventCreate, title="Mandantengespräch Live", start=start.isoformat(), client_id=meier.pk),
    )

    log_in(page, server, user.email)
    page.goto(f"{server}/kalender/?month={month:%Y-%m}")
    chip = f'.cal-day[data-date="{{}}"] .cal-chip[data-event-id="{event.pk}"]'
    page.locator(chip.format("2026-12-08")).wait_for(timeout=5000)
    page.wait_for_timeout(700)  # let the mutation socket connect

    moved = (start + dt.timedelta(days=2)).isoformat()
    result = execute_tool(server, key, "calendar_update_event", {"event_id": event.pk, "start": moved})
    assert result["ok"], result
    assert result["output"]["event"]["client"]["name"] == "Meier GmbH"
    page.locator(chip.format("2026-12-10")).wait_for(state="visible", timeout=5000)  # live, no reload
    assert page.locator(chip.format("2026-12-08")).count() == 0
    assert "Meier GmbH" in (page.locator(chip.format("2026-12-10")).get_attribute("title") or "")

    page.locator(chip.format("2026-12-10")).drag_to(page.locator('.cal-day[data-date="2026-12-17"]'))
    wait_for(lambda: CalendarEvent.objects.get(pk=event.pk).start.day == 17, timeout=5)
    saved = CalendarEvent.objects.get(pk=event.pk)
    assert saved.start == dt.datetime(2026, 12, 17, 10, tzinfo=BERLIN)
    assert saved.end - saved.start == dt.timedelta(hours=1) and saved.client_id == meier.pk
    page.reload()
    page.locator(chip.format("2026-12-17")).wait_for(timeout=5000)
