"""Every staff page on a phone and on the desktop (issue 14, items 1 and 13), signed in as the
admin of the demo office (so every list, board and calendar has rows):

- 390×844 (and 360 px): nothing scrolls sideways, the main navigation is behind a menu button that opens
  and closes (mouse and keyboard, aria-expanded), tables are stacked into labelled cards;
- 1366×800 (and a tablet's 820 px): nothing scrolls sideways, the navigation is shown
  without the button on the desktop;
- axe-core (axe-playwright-python) finds no serious or critical violation on any page, at both
  sizes.

Screenshots of the key pages go to $CLAPILOT_SCREENSHOT_DIR (or the test's tmp dir)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from apps.accounts.principal import Principal
from apps.agent.models import ChatSession, Message
from apps.calendar.visibility import visible_events
from apps.clients.visibility import visible_cases
from apps.documents.visibility import visible_documents
from apps.notes.visibility import visible_notes, visible_pages
from apps.ops import demo
from apps.tasks.services import visible_tasks
from apps.tasks.visibility import visible_boards
from apps.wiki.services import visible_pages as visible_wiki_pages
from tests.e2e.helpers import log_in
from tests.e2e.pages import full_pages
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 780}
DESKTOP = {"width": 1366, "height": 800}
TABLET = {"width": 820, "height": 1180}
# Routes that only take POST: any value does, the GET answers 405 and is not a page.
POST_ONLY = 1
POST_ONLY_ARGUMENTS = (
    "folder_id",
    "proposal_id",
    "widget_id",
    "key_id",
    "token_id",
    "job_id",
    "file_id",
    "rule_id",
    "item_id",  # a document's workflow proposal: decided by POST
    "staged_id",  # a staged call: its card is JSON, its decision a POST
    "standing_id",  # a standing approval: revoked by POST
)

OVERFLOW = """() => {
  const width = window.innerWidth;
  const wide = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > width + 1) wide.push(`${el.tagName.toLowerCase()}.${el.className}#${el.id} → ${Math.round(box.right)}`);
  }
  return { scrollWidth: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5) };
}"""

PANEL_EDGES = """summary => {
  const box = summary.parentElement.querySelector(":scope > :not(summary)").getBoundingClientRect();
  return [box.left, box.right];
}"""


@pytest.fixture
def office(transactional_db, statuses, common_deadline_rules):
    """The demo office (every app's demo loader) and its admin, plus a chat with a few turns."""
    admin = UserFactory(
        email="chefin@kanzlei.example", full_name="Claudia Chefin", role="admin", is_superuser=True
    )
    demo.load_once(admin, PASSWORD)
    chat = ChatSession.objects.create(user=admin, title="Fristen der Woche")
    Message.objects.create(session=chat, role="user", content="Welche Fristen laufen diese Woche ab?")
    Message.objects.create(
        session=chat,
        role="assistant",
        content="Diese Woche laufen zwei Fristen ab: die Umsatzsteuervoranmeldung und ein Einspruch.",
    )
    return admin, chat


def samples(admin, chat) -> dict[str, object]:
    """A visible row for each route argument, so each detail page shows real data."""
    principal = Principal.for_user(admin)
    case = visible_cases(principal).order_by("pk").first()
    wiki_page = visible_wiki_pages(principal).order_by("pk").first()
    values = {
        "task_id": visible_tasks(principal).order_by("pk").first().pk,
        "board_id": visible_boards(principal).order_by("pk").first().pk,  # share dialog (JSON)
        "client_id": case.client_id,
        "case_id": case.pk,
        "event_id": visible_events(principal).order_by("pk").first().pk,
        "document_id": visible_documents(principal).order_by("pk").first().pk,
        "note_id": visible_notes(principal).order_by("pk").first().pk,
        "page_id": visible_pages(principal).order_by("pk").first().pk,
        "session_id": chat.pk,
        "slug": wiki_page.slug,
        "number": 1,
        "memory_id": first_memory_id(),
    }
    return {**values, **dict.fromkeys(POST_ONLY_ARGUMENTS, POST_ONLY)}


def first_memory_id() -> int:
    """The memory page's edit form needs a memory; the demo office has none yet (then the
    route answers 404 and is no page)."""
    from apps.memory.models import Memory

    return Memory.objects.order_by("pk").values_list("pk", flat=True).first() or POST_ONLY


def screenshot_dir(tmp_path) -> Path:
    directory = Path(os.environ.get("CLAPILOT_SCREENSHOT_DIR") or tmp_path / "screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def key_pages(values: dict, pages: list[str]) -> dict[str, str]:
    """Screenshot name → path for dashboard, board, Fristen, client, case and chat (when present)."""
    wanted = {
        "dashboard": "/",
        "board": "/aufgaben/",
        "fristen": "/kalender/fristen/",
        "client": f"/mandanten/{values['client_id']}/",
        "case": f"/mandanten/{values['client_id']}/akten/{values['case_id']}/",
        "chat": f"/chat/{values['session_id']}/",
    }
    return {name: path for name, path in wanted.items() if path in pages}


def open_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_load_state("networkidle")


def assert_fits(page, path: str) -> None:
    measured = page.evaluate(OVERFLOW)
    assert measured["scrollWidth"] <= measured["width"], (path, measured)


def assert_navigation_opens_and_closes(page, path: str) -> None:
    toggle = page.locator("[data-nav-toggle]")
    panel = page.locator("#site-nav")
    assert toggle.is_visible(), path
    assert toggle.get_attribute("aria-expanded") == "false" and not panel.is_visible(), path
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true", path
    assert panel.locator(".mainnav a").first.is_visible(), path
    assert_fits(page, f"{path} (menu open)")
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "false" and not panel.is_visible(), path


def serious_violations(page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[node['target'] for node in v['nodes'][:3]]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def note_violations(page, where: str, found: dict) -> None:
    """axe-core on the loaded page: serious and critical violations are collected, not raised, so
    one run names every page that has them."""
    if violations := serious_violations(page):
        found[where] = violations


class Office:
    """The signed-in admin's pages, their sample rows and the screenshots to take."""

    def __init__(self, browser, server, office, tmp_path, **context) -> None:
        admin, chat = office
        self.shots = screenshot_dir(tmp_path)
        self.context = browser.new_context(locale="de-DE", **context)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.violations: dict = {}
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        log_in(self.page, server, admin.email)
        values = samples(admin, chat)
        self.pages = full_pages(self.page, server, values)
        assert {"/", "/aufgaben/", "/kalender/", "/mandanten/", f"/chat/{chat.pk}/"} <= set(self.pages), (
            self.pages
        )
        self.screenshots = key_pages(values, self.pages)
        assert {"dashboard", "board", "client", "chat"} <= set(self.screenshots), self.screenshots

    def shoot(self, server, suffix: str) -> None:
        for name, path in self.screenshots.items():
            open_page(self.page, f"{server}{path}")
            self.page.screenshot(path=str(self.shots / f"{name}-{suffix}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors
        assert self.violations == {}, self.violations


# Phone and desktop are two tests, so the test processes run them side by side (each walks every page).
def test_every_page_fits_a_phone_without_accessibility_violations(server, browser, office, tmp_path):
    walk = Office(browser, server, office, tmp_path, viewport=PHONE, has_touch=True)
    page = walk.page
    for path in walk.pages:
        open_page(page, f"{server}{path}")
        assert_fits(page, path)
        assert_navigation_opens_and_closes(page, path)
        note_violations(page, f"{path} (phone)", walk.violations)
        # The narrowest phones in use (360 px) too: the same page, narrower (CSS reflows).
        page.set_viewport_size(SMALL_PHONE)
        assert_fits(page, f"{path} at 360 px")
        page.set_viewport_size(PHONE)
    walk.shoot(server, "phone-390x844")

    # Keyboard: Enter opens the menu, focus walks into it, Escape closes it and returns focus.
    open_page(page, f"{server}/aufgaben/")
    page.focus("[data-nav-toggle]")
    page.keyboard.press("Enter")
    assert page.get_attribute("[data-nav-toggle]", "aria-expanded") == "true"
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.closest('#site-nav') !== null")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert focused and outline != "none"
    page.keyboard.press("Escape")
    assert page.get_attribute("[data-nav-toggle]", "aria-expanded") == "false"
    assert page.evaluate("document.activeElement.hasAttribute('data-nav-toggle')")
    # A click outside the open menu closes it too.
    page.click("[data-nav-toggle]")
    # On the page below the header: the open menu (one entry more with Freigaben) reaches past a
    # fixed point of a phone's screen.
    page.locator("#main").dispatch_event("click")
    assert page.get_attribute("[data-nav-toggle]", "aria-expanded") == "false"

    # Drop-downs of the header tools (the notification bell …) open inside the screen.
    for summary in page.locator(".topbar-tools details > summary").all():
        summary.click()
        left, right = summary.evaluate(PANEL_EDGES)
        assert left >= 0 and right <= PHONE["width"], (left, right)
        summary.click()

    # Tables become cards: each cell carries its column's heading.
    open_page(page, f"{server}/aufgaben/liste/")
    first_row = page.locator("main table tbody tr").first
    assert first_row.evaluate("row => getComputedStyle(row).display") == "block"
    assert first_row.locator("td").nth(1).get_attribute("data-label") == "Mandant"
    # The board swipes column by column.
    open_page(page, f"{server}/aufgaben/")
    assert page.evaluate("getComputedStyle(document.querySelector('.kanban')).scrollSnapType").startswith("x")
    walk.close()


def test_every_page_fits_the_desktop_without_accessibility_violations(server, browser, office, tmp_path):
    walk = Office(browser, server, office, tmp_path, viewport=DESKTOP)
    page = walk.page
    for path in walk.pages:
        open_page(page, f"{server}{path}")
        assert_fits(page, path)
        assert not page.locator("[data-nav-toggle]").is_visible(), path
        assert page.locator(".mainnav a").first.is_visible(), path
        note_violations(page, f"{path} (desktop)", walk.violations)
        # A tablet in portrait: the collapsed navigation, tables in their own scroll box.
        page.set_viewport_size(TABLET)
        assert_fits(page, f"{path} at 820 px")
        page.set_viewport_size(DESKTOP)
    walk.shoot(server, "desktop-1366x800")
    # The pages one sees signed out.
    walk.context.clear_cookies()
    for path in ("/accounts/login/", "/gibt-es-nicht/"):
        open_page(page, f"{server}{path}")
        note_violations(page, path, walk.violations)
    walk.close()
