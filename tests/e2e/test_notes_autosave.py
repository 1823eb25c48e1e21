"""In Chromium: Notizen save themselves while one types (a second page sees the text after a
reload); a colleague's concurrent edit shows the conflict banner and nobody's text is
overwritten; an autosave against a version that moved on is refused with the banner; leaving
with unsaved edits asks first (beforeunload), leaving after the autosave does not."""

import pytest
from django.db.models import F

from apps.notes.models import Note, NotePage
from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e


def open_note(page, server, note):
    page.goto(f"{server}/notizen/{note.pk}/")
    page.wait_for_selector("#page-body")
    page.wait_for_timeout(600)  # let the mutation socket connect


def wait_for_state(page, text, timeout=5000):
    page.wait_for_function(
        "t => document.getElementById('save-state').textContent === t", arg=text, timeout=timeout
    )


def type_into_body(page, text):
    page.click("#page-body")
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def test_autosave_conflict_banner_and_leave_guard(server, browser):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    note = Note.objects.create(name="Jahresgespräch", visibility="shared")
    sheet = NotePage.objects.create(
        note=note, ordinal=0, title="Protokoll", html="<p>Start</p>", text="Start"
    )
    contexts = [browser.new_context(locale="de-DE") for _ in range(3)]
    first, second, bens = (c.new_page() for c in contexts)
    dialogs = []
    first.on("dialog", lambda d: (dialogs.append(d.type), d.dismiss()))
    log_in(first, server, anna.email)
    log_in(second, server, anna.email)
    log_in(bens, server, ben.email)

    # Type, wait (no click on Save): the page saves itself; a second page sees it after a reload.
    open_note(first, server, note)
    type_into_body(first, " Erster Punkt")
    wait_for_state(first, "Ungespeicherte Änderungen", timeout=3000)
    assert wait_for(lambda: "Erster Punkt" in NotePage.objects.get(pk=sheet.pk).text, timeout=10)
    wait_for_state(first, "Gespeichert")
    open_note(second, server, note)
    assert "Erster Punkt" in second.inner_text("#page-body")
    second.reload()
    second.wait_for_selector("#page-body")
    assert "Erster Punkt" in second.inner_text("#page-body")
    first.reload()  # saved: leaving needs no confirmation
    first.wait_for_selector("#page-body")
    assert dialogs == []
    first.wait_for_timeout(600)

    # Anna and Ben type at the same time: Anna's autosave lands first; Ben's page shows the
    # banner (live, or as the answer to his stale autosave) and his text overwrites nothing.
    open_note(bens, server, note)
    type_into_body(first, " Annas Satz")
    type_into_body(bens, " Bens Satz")
    bens.wait_for_selector("#page-changed:not([hidden])", timeout=8000)
    assert wait_for(lambda: "Annas Satz" in NotePage.objects.get(pk=sheet.pk).text, timeout=10)
    bens.wait_for_timeout(3000)  # longer than the autosave delay: still nothing of Ben's stored
    stored = NotePage.objects.get(pk=sheet.pk).text
    assert "Annas Satz" in stored and "Bens Satz" not in stored
    assert "Bens Satz" in bens.inner_text("#page-body")  # his text stays, he decides
    bens.click("#load-theirs")
    bens.wait_for_selector("#page-changed", state="hidden", timeout=5000)
    assert "Annas Satz" in bens.inner_text("#page-body")
    wait_for_state(first, "Gespeichert")

    # A change that reached no open page (a direct database write): the autosave sends the old
    # version, the server refuses it, the banner appears and the stored text stays.
    NotePage.objects.filter(pk=sheet.pk).update(
        html="<p>Von woanders</p>", text="Von woanders", version=F("version") + 1
    )
    type_into_body(first, " Nach dem Konflikt")
    first.wait_for_selector("#page-changed:not([hidden])", timeout=8000)
    first.locator("#save-state.failed").wait_for(timeout=3000)
    first.wait_for_timeout(2500)  # no further autosave while the conflict waits
    assert NotePage.objects.get(pk=sheet.pk).text == "Von woanders"
    assert "Nach dem Konflikt" in first.inner_text("#page-body")

    # Leaving with those unsaved edits asks first (the dialog is dismissed: the page stays).
    with first.expect_event("dialog", timeout=5000) as asked:
        first.close(run_before_unload=True)
    assert asked.value.type == "beforeunload"
    first.wait_for_timeout(300)  # dismissed by the handler above: the page stays open
    assert not first.is_closed() and dialogs == ["beforeunload"]
    first.click("#keep-mine")  # she keeps hers on purpose: now it is saved
    assert wait_for(lambda: "Nach dem Konflikt" in NotePage.objects.get(pk=sheet.pk).text, timeout=10)
    for context in contexts:
        context.close()
