"""Anna shares her board with Ben from the board page: the board appears in Ben's open page
without a reload; when she revokes it, it disappears from his open page at once."""

import pytest

from apps.tasks.models import Board, Task
from tests.e2e.helpers import log_in
from tests.e2e.test_layout import serious_violations
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e


def same_page(page) -> bool:
    """True while the page has not reloaded since `mark()`."""
    return page.evaluate("window.__notReloaded === true")


def mark(page) -> None:
    page.evaluate("window.__notReloaded = true")


def test_share_a_board_live_and_revoke_it_live(server, browser, statuses):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    board = Board.objects.create(name="Mandat Huber", visibility=Board.Visibility.RESTRICTED, owner=anna)
    task = Task.objects.create(title="Einspruch prüfen", board=board, status=statuses["offen"])

    owner = browser.new_context(locale="de-DE").new_page()
    colleague = browser.new_context(locale="de-DE").new_page()
    log_in(owner, server, anna.email)
    log_in(colleague, server, ben.email)
    owner.goto(f"{server}/aufgaben/?board={board.pk}")
    colleague.goto(f"{server}/aufgaben/")
    colleague.wait_for_selector("#kanban")
    tab = colleague.locator(f'[data-list="boards"] [data-record-id="board-{board.pk}"]')
    assert tab.count() == 0
    colleague.wait_for_timeout(800)  # let the mutation socket connect
    mark(colleague)

    # share from the page: the dialog searches people and grants through the service
    owner.get_by_role("button", name="Teilen").click()
    dialog = owner.locator("#share-dialog")
    dialog.get_by_label("Person oder Gruppe hinzufügen").fill("Ben")
    dialog.get_by_role("button", name="Ben Braun").click()
    dialog.locator(f'[data-share-key="user:{ben.pk}"]').wait_for(timeout=5000)
    assert serious_violations(owner) == []  # the open dialog, with a grant and the search results

    tab.wait_for(state="visible", timeout=8000)
    assert tab.inner_text().startswith("Mandat Huber")
    assert same_page(colleague), "the board must appear without a reload"

    colleague.locator(f'[data-list="boards"] a[data-record-id="board-{board.pk}"]').click()
    card = colleague.locator(f'.task-card[data-task-id="{task.pk}"]')
    card.wait_for(timeout=8000)
    colleague.wait_for_timeout(800)
    mark(colleague)

    # revoke: Ben's open board drops the tab, the cards and the board itself at once
    dialog.locator(f'[data-share-revoke="user:{ben.pk}"]').click()
    dialog.locator(f'[data-share-key="user:{ben.pk}"]').wait_for(state="detached", timeout=5000)
    card.wait_for(state="detached", timeout=8000)
    tab.wait_for(state="detached", timeout=8000)
    colleague.get_by_text("Dieses Board ist nicht mehr mit Ihnen geteilt.").wait_for(timeout=8000)
    assert colleague.locator("#kanban").count() == 0
    assert same_page(colleague)

    # and the next request answers like a board that never existed
    response = colleague.goto(f"{server}/aufgaben/{task.pk}/")
    assert response.status == 404

    # bad input in the dialog: the owner's own access cannot be revoked (the button is not even offered)
    assert dialog.locator(f'[data-share-revoke="user:{anna.pk}"]').count() == 0


def test_share_a_note_per_person_live(server, browser):
    from apps.notes.models import Note, NotePage

    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    note = Note.objects.create(name="Mandantengespräch Huber", visibility="private", owner=anna)
    NotePage.objects.create(note=note, title="Seite 1", html="<p>Vertraulich</p>", text="Vertraulich")

    owner = browser.new_context(locale="de-DE").new_page()
    colleague = browser.new_context(locale="de-DE").new_page()
    log_in(owner, server, anna.email)
    log_in(colleague, server, ben.email)
    owner.goto(f"{server}/notizen/{note.pk}/")
    colleague.goto(f"{server}/notizen/")
    colleague.wait_for_selector("#note-list")
    item = colleague.locator(f'#note-list li[data-note-id="{note.pk}"]')
    assert item.count() == 0
    colleague.wait_for_timeout(800)
    mark(colleague)

    owner.get_by_role("button", name="Teilen").click()
    dialog = owner.locator("#share-dialog")
    dialog.get_by_label("Person oder Gruppe hinzufügen").fill("Ben")
    dialog.get_by_role("button", name="Ben Braun").click()
    dialog.locator(f'[data-share-key="user:{ben.pk}"]').wait_for(timeout=5000)
    item.wait_for(timeout=8000)
    assert same_page(colleague)

    colleague.goto(f"{server}/notizen/{note.pk}/")
    colleague.locator("#page-body", has_text="Vertraulich").wait_for(timeout=8000)
    colleague.wait_for_timeout(800)
    mark(colleague)
    dialog.locator(f'[data-share-revoke="user:{ben.pk}"]').click()
    colleague.locator("#note-gone").wait_for(state="visible", timeout=8000)
    assert same_page(colleague)
    assert colleague.goto(f"{server}/notizen/{note.pk}/").status == 404
