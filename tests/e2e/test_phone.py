"""On a phone (390×844) and on the desktop (issue 27, item 10 "Phone"):

- the calendar shows an agenda (days with their Fristen and appointments, whole titles) instead
  of the month grid and of the week's hour grid under 600 px, and the grids on the desktop;
- one tap on "Erledigt" in the Fristen list marks the Frist done (the database and the page say
  so), through the same completion path as the Frist's page;
- a Frist's actions (Erledigt, Streichen) are on the first screen of its page;
- the navigation, the calendar's and the Fristen list's buttons and links are at least 44 px high;
- the notes page shows the open note's editor above the folder and note lists."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.contracts import EventCreate
from apps.calendar.models import CalendarEvent
from apps.core.inputs import build
from apps.notes import services as notes
from apps.notes.contracts import NoteCreate
from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 800}
TOUCH = 44
LONG_TITLE = "Einspruchsfrist Umsatzsteuerbescheid 2024 Müller"

# Every visible link, button and summary inside `root` smaller than 44 px high (or wide, for an
# icon-sized control): a list of "text → width×height".
SMALL_TARGETS = """([root, touch]) => {
  const small = [];
  for (const scope of document.querySelectorAll(root)) {
    for (const el of scope.querySelectorAll("a[href], button, summary, select, input:not([type=hidden])")) {
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height || getComputedStyle(el).visibility === "hidden") continue;
      const closed = el.closest("details:not([open])");
      if (closed && el.parentElement !== closed) continue;  // inside a closed <details>: not shown
      if (box.height < touch || box.width < touch) {
        small.push(`${(el.textContent || el.getAttribute("aria-label") || el.name || "").trim().slice(0, 30)} → ${Math.round(box.width)}×${Math.round(box.height)}`);
      }
    }
  }
  return small;
}"""


def _phone(browser):
    return browser.new_context(locale="de-DE", viewport=PHONE, is_mobile=True, has_touch=True)


def _desktop(browser):
    return browser.new_context(locale="de-DE", viewport=DESKTOP)


def _signed_in(context, server, user, url):
    """A page of a new browser context (`_phone` or `_desktop`), signed in as `user`, at `url`."""
    page = context.new_page()
    log_in(page, server, user.email)
    page.goto(url)
    return page


@pytest.fixture
def office(transactional_db):
    """A person with two Fristen and an appointment this month and a note."""
    user = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    principal = Principal.for_user(user)
    today = dt.date.today()
    day = today if today.day <= 25 else today.replace(day=20)
    frist = services.create_event(
        principal,
        build(EventCreate, title=LONG_TITLE, kind="deadline", start=day.isoformat(), all_day=True),
    )
    other = services.create_event(
        principal,
        build(
            EventCreate,
            title="Klagefrist Finanzgericht Schulze",
            kind="deadline",
            start=(day + dt.timedelta(days=2)).isoformat(),
            all_day=True,
        ),
    )
    meeting = services.create_event(
        principal,
        build(
            EventCreate,
            title="Jahresgespräch mit Familie Schneider",
            start=f"{day.isoformat()}T10:00",
            end=f"{day.isoformat()}T11:00",
        ),
    )
    note, _page = notes.create_note(
        principal, build(NoteCreate, name="Besprechung Schneider", html="<p>Unterlagen anfordern</p>")
    )
    return {"user": user, "day": day, "frist": frist, "other": other, "meeting": meeting, "note": note}


def test_calendar_is_an_agenda_on_the_phone_and_a_grid_on_the_desktop(server, browser, office):
    day = office["day"]
    phone = _signed_in(_phone(browser), server, office["user"], f"{server}/kalender/")
    agenda = phone.locator(".cal-month-agenda")
    agenda.wait_for(state="visible", timeout=5000)
    assert not phone.locator("table.cal-month").is_visible()
    today_entry = agenda.locator(f'[data-date="{day.isoformat()}"]')
    assert LONG_TITLE in today_entry.inner_text()
    assert "Jahresgespräch mit Familie Schneider" in today_entry.inner_text()
    assert "10:00" in today_entry.inner_text()
    # The whole title is readable: its link is not cut off (no ellipsis, nothing hidden).
    title = today_entry.locator(f'a[data-record-id="{office["frist"].pk}"]')
    assert title.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert phone.locator(".cal-month-agenda [data-record-id]").count() == 3
    small = phone.evaluate(SMALL_TARGETS, [".cal-head, .cal-nav, .cal-month-agenda", TOUCH])
    assert not small, small
    phone.context.close()

    desktop = _signed_in(_desktop(browser), server, office["user"], f"{server}/kalender/")
    desktop.locator("table.cal-month").wait_for(state="visible", timeout=5000)
    assert not desktop.locator(".cal-month-agenda").is_visible()
    assert desktop.locator(f'table.cal-month .cal-chip[data-event-id="{office["frist"].pk}"]').is_visible()
    desktop.context.close()


def test_week_is_a_list_of_days_on_the_phone_and_the_hour_grid_on_the_desktop(server, browser, office):
    day = office["day"]
    monday = day - dt.timedelta(days=day.weekday())
    # The Frist and the appointment are on `day`, the other Frist two days later (maybe next week).
    in_week = 2 + ((day + dt.timedelta(days=2)).isocalendar()[1] == day.isocalendar()[1])
    phone = _signed_in(
        _phone(browser), server, office["user"], f"{server}/kalender/woche/?week={day.isoformat()}"
    )
    days = phone.locator(".cal-week-agenda")
    days.wait_for(state="visible", timeout=5000)
    assert not phone.locator(".cal-week-grid").is_visible()  # no grid to scroll sideways
    entry = days.locator(f'[data-date="{day.isoformat()}"]')
    assert LONG_TITLE in entry.inner_text() and "10:00" in entry.inner_text()
    assert days.locator("[data-record-id]").count() == in_week
    title = entry.locator(f'a[data-record-id="{office["frist"].pk}"]')
    assert title.evaluate("el => el.scrollWidth <= el.clientWidth + 1")  # the whole title
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    small = phone.evaluate(SMALL_TARGETS, [".cal-nav, .cal-week-agenda", TOUCH])
    assert not small, small
    # A week without entries says so.
    phone.goto(f"{server}/kalender/woche/?week={(monday + dt.timedelta(days=70)).isoformat()}")
    assert "Keine Einträge in dieser Woche." in phone.locator(".cal-week-agenda").inner_text()
    phone.context.close()

    desktop = _signed_in(
        _desktop(browser), server, office["user"], f"{server}/kalender/woche/?week={day.isoformat()}"
    )
    desktop.locator(".cal-week-grid").wait_for(state="visible", timeout=5000)
    assert not desktop.locator(".cal-week-agenda").is_visible()
    desktop.context.close()


def test_one_tap_marks_a_frist_done_from_the_list(server, browser, office):
    frist, other = office["frist"], office["other"]
    phone = _signed_in(_phone(browser), server, office["user"], f"{server}/kalender/fristen/")
    row = phone.locator(f'tr[data-record-id="{frist.pk}"]')
    row.wait_for(timeout=5000)
    done = row.get_by_role("button", name="Erledigt", exact=True)
    assert done.is_visible()
    small = phone.evaluate(SMALL_TARGETS, [".fristen-table, .cal-head", TOUCH])
    assert not small, small

    # A tap before htmx has loaded (a loaded machine) posts the form plainly: the page then comes
    # back through a redirect with the notice among the messages, not in the swapped list.
    phone.wait_for_function("() => window.htmx !== undefined", timeout=20000)
    done.tap()
    assert wait_for(lambda: CalendarEvent.objects.get(pk=frist.pk).status == "done", timeout=5)
    saved = CalendarEvent.objects.get(pk=frist.pk)
    assert saved.done_by == office["user"] and saved.done_how  # who and how, as on the Frist's page
    assert CalendarEvent.objects.get(pk=other.pk).status == "open"  # only the tapped row
    # htmx swaps the re-rendered list in: slow on a loaded machine, so wait longer than for a click.
    # The notice stands outside the list: the live refresh of the same change (the WebSocket event
    # can come after the answer) re-renders the list without wiping it.
    notice = "#calendar-notice .banner.success, ul.messages li.success"
    phone.locator(notice, has_text=LONG_TITLE).wait_for(timeout=20000)
    # After a plain post the page is new: its scripts must be there before anything refreshes it.
    phone.wait_for_function(
        "() => window.htmx !== undefined && window.__clapilotMutations?.refreshesOwed !== undefined",
        timeout=20000,
    )
    with phone.expect_response(lambda r: "/kalender/fristen/" in r.url and r.request.method == "GET"):
        phone.evaluate(
            "document.getElementById('calendar-view').dispatchEvent(new CustomEvent('clapilot:refresh'))"
        )
    phone.wait_for_timeout(200)  # the swap after the answer
    assert phone.locator(notice, has_text=LONG_TITLE).is_visible()  # a live refresh keeps the notice
    # The list shows open Fristen: the done one has left it, the other one is still there.
    assert phone.locator(f'tr[data-record-id="{frist.pk}"]').count() == 0
    assert phone.locator(f'tr[data-record-id="{other.pk}"]').is_visible()
    assert saved.history.filter(field="status", new="done").exists()
    phone.context.close()


def test_a_frists_actions_are_on_the_first_screen(server, browser, office):
    frist = office["frist"]
    phone = _signed_in(_phone(browser), server, office["user"], f"{server}/kalender/{frist.pk}/")
    actions = phone.locator(".event-actions")
    actions.wait_for(timeout=5000)
    done = actions.get_by_role("button", name="Erledigt", exact=True)
    cancel = actions.get_by_role("button", name="Frist streichen")
    for control in (done, cancel, actions.locator("[name=how]")):
        box = control.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
        assert box["height"] >= TOUCH, box
    heading = phone.locator("h1").bounding_box()
    form = phone.locator("#event-form").bounding_box()
    assert heading["y"] < actions.bounding_box()["y"] < form["y"]  # title, actions, then the editor

    phone.fill(".event-actions [name=how]", "Einspruch per beA eingelegt")
    done.tap()
    assert wait_for(lambda: CalendarEvent.objects.get(pk=frist.pk).status == "done", timeout=5)
    assert CalendarEvent.objects.get(pk=frist.pk).done_how == "Einspruch per beA eingelegt"
    phone.context.close()

    desktop = _signed_in(
        _desktop(browser), server, office["user"], f"{server}/kalender/{office['other'].pk}/"
    )
    actions = desktop.locator(".event-actions")
    actions.wait_for(timeout=5000)
    box, form = actions.bounding_box(), desktop.locator("#event-form").bounding_box()
    assert box["x"] > form["x"] + form["width"]  # beside the editor on the desktop
    assert box["y"] < DESKTOP["height"]
    desktop.context.close()


def test_navigation_targets_are_44_px_on_the_phone(server, browser, office):
    phone = _signed_in(_phone(browser), server, office["user"], f"{server}/kalender/fristen/")
    phone.locator("[data-nav-toggle]").tap()
    phone.locator("#site-nav").wait_for(state="visible", timeout=5000)
    small = phone.evaluate(SMALL_TARGETS, [".topbar", TOUCH])
    assert not small, small


def test_note_editor_comes_before_the_lists_on_the_phone(server, browser, office):
    note = office["note"]
    phone = _signed_in(_phone(browser), server, office["user"], f"{server}/notizen/{note.pk}/")
    editor = phone.locator("#note-editor")
    editor.wait_for(timeout=5000)
    editor_box = editor.bounding_box()
    for lists in ("#note-folders", ".notes-list"):
        assert editor_box["y"] + editor_box["height"] <= phone.locator(lists).bounding_box()["y"], lists
    assert phone.locator("#page-body").bounding_box()["y"] < PHONE["height"]
    small = phone.evaluate(SMALL_TARGETS, [".notes-list, #note-folders, .page-head", TOUCH])
    assert not small, small
    # "Alle Notizen ↓" at the top jumps past the editor to the list, below the sticky header.
    phone.locator(".notes-to-list").tap()
    assert wait_for(lambda: phone.evaluate("window.scrollY") > 0, timeout=5)
    top = phone.locator("#notes-q").bounding_box()["y"]
    header = phone.locator(".topbar").bounding_box()
    assert header["y"] + header["height"] <= top < PHONE["height"], (header, top)
    phone.context.close()

    desktop = _signed_in(_desktop(browser), server, office["user"], f"{server}/notizen/{note.pk}/")
    desktop.locator("#note-editor").wait_for(timeout=5000)
    assert not desktop.locator(".notes-to-list").is_visible()  # the list is beside the editor
    # The desktop keeps its three columns: folders | list | editor.
    assert (
        desktop.locator("#note-folders").bounding_box()["x"]
        < desktop.locator(".notes-list").bounding_box()["x"]
        < desktop.locator("#note-editor").bounding_box()["x"]
    )
    desktop.context.close()
