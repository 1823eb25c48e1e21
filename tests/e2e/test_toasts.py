"""In Chromium: live notices (toasts) only for what concerns the viewer. A colleague's upload is
one notice for the others (its extraction job belongs to the same operation) and none for the
uploader; one's own tool calls and saves show none; many at once collapse into one "n Änderungen"
notice; the stack never covers the page's primary button (1366×800 and 390×844); muted, none."""

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.mutations import actions
from apps.mutations.origin import operation
from apps.mutations.services import record_mutation
from apps.notes.models import Note, NotePage
from tests.e2e.helpers import execute_tool, log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e

# Every notice a page ever showed, in order (they vanish after a few seconds).
RECORD_TOASTS = """
window.__toasts = [];
const groupOf = (node) => (node.nodeType === 1 ? node : node.parentElement)?.closest(".toast-group");
new MutationObserver((records) => {
  for (const record of records) {
    const group = groupOf(record.target);
    if (group) window.__toasts.push(group.textContent);
    for (const node of record.addedNodes) {
      if (node.nodeType === 1 && node.classList.contains("toast")) window.__toasts.push(node.textContent);
    }
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""

OVERLAPS = """() => {
  const box = document.getElementById("live-announcer")?.getBoundingClientRect();
  if (!box || !box.height) return null;
  return [...document.querySelectorAll("button.primary, .button.primary")]
    .map((b) => b.getBoundingClientRect())
    .filter((r) => r.width && r.height && r.bottom > 0 && r.top < innerHeight)
    .filter((r) => box.left < r.right && r.left < box.right && box.top < r.bottom && r.top < box.bottom).length;
}"""


@pytest.fixture
def shared_media(monkeypatch, tmp_path):
    """The server and worker subprocesses must write and read the same media directory."""
    monkeypatch.setenv("MEDIA_ROOT", str(tmp_path / "e2e-media"))


def open_page(browser, server, user, path, viewport=None):
    context = browser.new_context(locale="de-DE", viewport=viewport or {"width": 1366, "height": 800})
    context.add_init_script(RECORD_TOASTS)
    page = context.new_page()
    log_in(page, server, user.email)
    page.goto(f"{server}{path}")
    page.wait_for_load_state()
    page.wait_for_timeout(700)  # let the mutation socket connect
    return page


def toasts(page) -> list[str]:
    return page.evaluate("window.__toasts")


def drop_file(page, name, text):
    page.evaluate(
        """([name, text]) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File([text], name, { type: "text/plain" }));
          const zone = document.getElementById("upload-zone");
          zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
        }""",
        [name, text],
    )


def test_a_colleagues_upload_is_one_notice_and_ones_own_none(shared_media, server, browser):
    """(Without a worker: that the extraction job joins the upload's operation is tested in
    tests/mutations/test_toast_events.py.)"""
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    annas = open_page(browser, server, anna, "/dokumente/")
    bens = open_page(browser, server, ben, "/dokumente/")

    drop_file(bens, "aktennotiz.txt", "Rückruf Hoffmann wegen Steuerbescheid")
    for page in (annas, bens):  # both lists follow the upload live
        page.locator('#document-rows tr:has(a:text-is("aktennotiz"))').wait_for(timeout=10000)
    annas.locator("#live-announcer .toast").first.wait_for(timeout=5000)
    annas.wait_for_timeout(1500)
    assert toasts(annas) == ["Dokument hinzugefügt: aktennotiz"]  # one, however many events
    assert toasts(bens) == []  # his own upload

    drop_file(annas, "vermerk.txt", "Frist notiert")
    for page in (annas, bens):
        page.locator('#document-rows tr:has(a:text-is("vermerk"))').wait_for(timeout=10000)
    bens.locator("#live-announcer .toast").first.wait_for(timeout=5000)
    bens.wait_for_timeout(1500)
    assert toasts(bens) == ["Dokument hinzugefügt: vermerk"]
    assert toasts(annas) == ["Dokument hinzugefügt: aktennotiz"]


def test_own_tool_calls_and_saves_show_no_notice_a_colleagues_edit_does(server, browser):
    # Admins: only they may hold API keys.
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger", role="admin", is_superuser=True)
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun", role="admin", is_superuser=True)
    _, annas_key = keys.create_api_key(Principal.for_user(anna), name="e2e", scopes=["tools:execute"])
    _, bens_key = keys.create_api_key(Principal.for_user(ben), name="e2e", scopes=["tools:execute"])
    note = Note.objects.create(name="Teamrunde", visibility="shared")
    NotePage.objects.create(note=note, ordinal=0, title="Agenda", html="<p>Punkt 1</p>", text="Punkt 1")
    page = open_page(browser, server, anna, f"/notizen/{note.pk}/")

    # Her own change through the tool API (as the copilot or a script of hers would): the page
    # follows it, but tells her nothing she did not know.
    renamed = execute_tool(
        server, annas_key, "notizen_update_note", {"note_id": note.pk, "name": "Teamrunde Mai"}
    )
    assert renamed["ok"], renamed
    page.locator("#note-name", has_text="Teamrunde Mai").wait_for(timeout=5000)
    page.click("#page-body")
    page.keyboard.press("Control+End")
    page.keyboard.type(" und Punkt 2")
    page.wait_for_function(
        "() => document.getElementById('save-state').textContent === 'Gespeichert'", timeout=8000
    )
    page.wait_for_timeout(1000)
    assert toasts(page) == []

    # A colleague's change to the note she sees: one notice.
    changed = execute_tool(
        server, bens_key, "notizen_update_note", {"note_id": note.pk, "name": "Teamrunde Juni"}
    )
    assert changed["ok"], changed
    page.locator("#note-name", has_text="Teamrunde Juni").wait_for(timeout=5000)
    page.locator("#live-announcer .toast", has_text="Notiz geändert: Teamrunde Juni").wait_for(timeout=5000)
    assert toasts(page) == ["Notiz geändert: Teamrunde Juni"]


def colleague_changes(ben, note, count):
    """`count` separate operations of Ben, each with two announced events (one notice each)."""
    for i in range(count):
        with operation(ben.pk):
            for topic in ("notizen.note.updated", "notizen.page.updated"):
                record_mutation(
                    audience="all",
                    topic=topic,
                    ui_actions=[actions.highlight(f"x{i}") | {"announce_key": topic}],
                )


@pytest.mark.parametrize(
    "viewport", [{"width": 1366, "height": 800}, {"width": 390, "height": 844}], ids=["desktop", "phone"]
)
def test_many_notices_collapse_never_cover_the_primary_button_and_can_be_muted(server, browser, viewport):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    note = Note.objects.create(name="Teamrunde", visibility="shared")
    NotePage.objects.create(note=note, ordinal=0, title="Agenda", html="<p>Punkt 1</p>" * 12, text="Punkt 1")

    for path, button in ((f"/notizen/{note.pk}/", "#save-page"), ("/settings/", "main button.primary")):
        page = open_page(browser, server, anna, path, viewport)
        # The primary button at the bottom edge of the screen, where the stack starts.
        page.locator(button).first.evaluate("b => b.scrollIntoView({ block: 'end' })")
        page.wait_for_timeout(300)
        colleague_changes(ben, note, 6)
        page.locator("#live-announcer .toast-group", has_text="6 Änderungen").wait_for(timeout=8000)
        assert page.locator("#live-announcer .toast").count() == 1  # the singles made way for it
        assert page.evaluate(OVERLAPS) == 0, path
        page.screenshot(path=f"/tmp/toasts-{viewport['width']}-{path.strip('/').replace('/', '-')}.png")
        page.mouse.wheel(0, -400)  # scrolling moves the button: the stack still keeps clear
        page.wait_for_timeout(300)
        assert page.evaluate(OVERLAPS) in (0, None), path
        page.context.close()

    anna.mute_toasts = True
    anna.save(update_fields=["mute_toasts"])
    page = open_page(browser, server, anna, f"/notizen/{note.pk}/", viewport)
    colleague_changes(ben, note, 2)
    page.wait_for_timeout(2000)
    assert toasts(page) == []
    page.context.close()
