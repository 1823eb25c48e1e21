"""In Chromium: the header search box. "/" focuses it (not while typing in a field), typing shows
the top hits of every domain after a short pause, arrow keys walk them, Escape closes, Enter
opens the results page; invisible rows never show; at 360 px the box fits the header."""

import pytest

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.notes import services as notes
from apps.notes.contracts import NoteCreate
from apps.tasks import services as tasks
from apps.tasks.contracts import BoardCreate, BoardCreateWithSharing, TaskCreate
from apps.tasks.models import TaskStatus
from tests.e2e.helpers import log_in
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.e2e

BOX = "#header-search-input"
PANEL = "#header-search-panel"


@pytest.fixture
def office(transactional_db):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    TaskStatus.objects.create(key="offen", name="Offen", category="open", sort_order=0)
    as_anna, as_ben = Principal.for_user(anna), Principal.for_user(ben)
    board = tasks.create_board(as_anna, build(BoardCreate, name="Kanzlei"))
    tasks.create_task(as_anna, build(TaskCreate, title="Zebrafink Bilanz prüfen", board_id=board.pk))
    secret = tasks.create_board(
        as_ben, build(BoardCreateWithSharing, name="Bens Board", visibility="restricted")
    )
    tasks.create_task(as_ben, build(TaskCreate, title="Zebrafink Geheimaufgabe", board_id=secret.pk))
    ClientFactory(name="Zebrafink KG", client_number="K-777", tax_number="21/815/08150")
    notes.create_note(as_anna, build(NoteCreate, name="Zebrafink Protokoll", text="Besprechung"))
    notes.create_note(
        as_ben, build(NoteCreate, name="Zebrafink Privatnotiz", visibility="private", text="privat")
    )
    return anna


def test_shortcut_drop_down_and_results_page(server, page, office):
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_viewport_size({"width": 1366, "height": 800})
    log_in(page, server, office.email)
    page.goto(f"{server}/")
    page.locator(BOX).wait_for()

    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "header-search-input"
    assert page.locator(BOX).input_value() == ""  # the slash is not typed into the box

    page.keyboard.type("zebraf")
    panel = page.locator(PANEL)
    panel.get_by_text("Zebrafink Protokoll").wait_for(timeout=10000)
    text = panel.inner_text()
    assert "Zebrafink Bilanz prüfen" in text and "Zebrafink KG" in text
    assert "Geheimaufgabe" not in text and "Privatnotiz" not in text

    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.hasAttribute('data-search-hit')")
    page.keyboard.press("Escape")
    assert panel.is_hidden() and page.evaluate("document.activeElement.id") == "header-search-input"

    page.keyboard.press("Enter")
    page.wait_for_url("**/suche/?q=zebraf")
    results = page.locator("main").inner_text()
    assert "Zebrafink KG" in results and "Zebrafink Bilanz prüfen" in results
    assert "Geheimaufgabe" not in results
    assert page.locator(BOX).input_value() == "zebraf"  # the header keeps the words

    page.locator(BOX).fill("")
    page.locator(BOX).type("2181508150")  # a Steuernummer without its slashes
    panel.get_by_text("Zebrafink KG").wait_for(timeout=10000)
    assert not [e for e in errors if "Content Security Policy" in e or "Uncaught" in e], errors


def test_slash_in_a_field_is_just_a_slash(server, page, office):
    log_in(page, server, office.email)
    page.goto(f"{server}/mandanten/")
    field = page.locator("main input[type=search]").first
    field.click()
    page.keyboard.type("a/b")
    assert field.input_value() == "a/b"
    assert page.evaluate("document.activeElement.id") != "header-search-input"


@pytest.mark.parametrize("width", [360, 390])
def test_the_box_fits_a_phone(server, page, office, width):
    page.set_viewport_size({"width": width, "height": 780})
    log_in(page, server, office.email)
    page.goto(f"{server}/")
    box = page.locator(BOX)
    box.wait_for()
    rect = box.bounding_box()
    assert rect["x"] >= 0 and rect["x"] + rect["width"] <= width and rect["height"] >= 44
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box.click()
    page.keyboard.type("zebraf")
    panel = page.locator(PANEL)
    panel.get_by_text("Zebrafink Protokoll").wait_for(timeout=10000)
    drop = panel.bounding_box()
    assert drop["x"] >= 0 and drop["x"] + drop["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
