"""The Kalender editor in the browser: the recurrence picker (details only when the entry repeats,
the RRULE built by the server), reminder choices, the attendee search, all errors of a bad series
at once with nothing saved, no sideways scrolling with a long client name at phone size; the week
view places the saved series in its hour grid."""

import datetime as dt

import pytest

from apps.calendar.models import CalendarEvent
from tests.e2e.helpers import log_in
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.e2e

LONG_NAME = (
    "Steuerberatungsgesellschaftsvermögensverwaltungsgesellschaft Hoffmann-Müller-Schmidt GmbH & Co. KG"
)


def test_recurrence_picker_reminder_attendees_and_week_grid(server, page):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Schmidt")
    UserFactory(email="ben@kanzlei.example", full_name="Ben Becker")
    UserFactory(email="clara@kanzlei.example", full_name="Clara Weiss")
    ClientFactory(name=LONG_NAME)
    monday = dt.date(2026, 12, 7)

    log_in(page, server, anna.email)
    page.goto(f"{server}/kalender/neu/?date={monday.isoformat()}")
    page.wait_for_selector("#event-form")
    detail = page.locator(".field-repeat_count")
    assert not detail.is_visible()  # "does not repeat": no interval or end to fill in

    # a bad series: every error at once, nothing saved
    page.fill("[name=title]", "Jour fixe")
    page.select_option("[name=repeat]", "weekly")
    assert detail.is_visible()
    assert "Woche" in page.locator("[data-interval-unit]").inner_text()
    page.fill("[name=repeat_interval]", "0")
    page.fill("[name=repeat_until]", "2026-12-01")
    page.fill("[name=repeat_count]", "3")
    page.click("#event-form button.primary")
    page.wait_for_load_state()
    errors = page.locator(".recurrence-picker small.error").all_inner_texts()
    assert len(errors) >= 3, errors
    assert any("nicht beides" in e for e in errors) and any("vor ihrem Beginn" in e for e in errors)
    assert not CalendarEvent.objects.exists()
    assert page.locator(".field-repeat_count").is_visible()  # the picker stays open on the error

    # the attendee search filters the people; the chosen ones stay visible
    page.fill("[data-attendee-search]", "ben")
    assert page.locator(".attendee-options label:visible").all_inner_texts() == ["Ben Becker"]
    page.locator(".attendee-options label", has_text="Ben Becker").click()
    page.fill("[data-attendee-search]", "clara")
    visible = page.locator(".attendee-options label:visible").all_inner_texts()
    assert sorted(visible) == ["Ben Becker", "Clara Weiss"]
    assert "1" in page.locator("[data-attendee-count]").inner_text()

    page.fill("[name=repeat_interval]", "1")
    page.fill("[name=repeat_until]", "")
    page.fill("[name=repeat_count]", "3")
    page.select_option("[name=remind_minutes_before]", "60")
    page.click("#event-form button.primary")
    page.wait_for_url("**/kalender/?month=2026-12")
    event = CalendarEvent.objects.get()
    assert event.rrule == "FREQ=WEEKLY;COUNT=3" and event.remind_minutes_before == 60
    assert [p.full_name for p in event.attendees.all()] == ["Ben Becker"]

    # week view: the 09:00–10:00 entry sits in the hour grid on Monday
    page.goto(f"{server}/kalender/woche/?week={monday.isoformat()}")
    chip = page.locator(
        f'.cal-timeline[data-date="{monday.isoformat()}"] .cal-chip[data-event-id="{event.pk}"]'
    )
    chip.wait_for()
    label = page.locator(".cal-hour-labels span", has_text="09:00")
    chip_box, label_box = chip.bounding_box(), label.bounding_box()
    assert abs(chip_box["y"] - label_box["y"]) < 12, (chip_box, label_box)
    ten = page.locator(".cal-hour-labels span", has_text="10:00").bounding_box()
    assert abs(chip_box["y"] + chip_box["height"] - ten["y"]) < 12

    # the editor at phone size with a very long client name: no sideways scrolling
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server}/kalender/neu/")
    page.wait_for_selector("#event-form")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.goto(f"{server}/kalender/woche/?week={monday.isoformat()}")
    # a phone gets the week as a list of its days (tests/e2e/test_phone.py), not the hour grid
    page.locator(f'.cal-week-agenda [data-record-id="{event.pk}"]').wait_for()
    assert not page.locator(".cal-week-grid").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
