"""In Chromium: a user has a note open; notizen_update_page through the tool API changes the open
editor live with a highlight; a script smuggled into the HTML never runs; typing and saving
persists; a stale save shows the conflict banner instead of overwriting."""

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.notes.models import Note, NotePage
from tests.e2e.helpers import execute_tool, log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e


def test_open_editor_follows_tool_changes_and_saves(server, page):
    user = UserFactory(email="anna@kanzlei.example", role="admin", is_superuser=True)
    principal = Principal.for_user(user)
    _, key = keys.create_api_key(principal, name="e2e", scopes=["tools:execute"])
    made = execute_tool(
        server, key, "notizen_create_note", {"name": "Jahresgespräch", "html": "<p>Alter Stand</p>"}
    )
    note, first = Note.objects.get(pk=made["output"]["note"]["id"]), NotePage.objects.get()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    log_in(page, server, user.email)
    page.goto(f"{server}/notizen/{note.pk}/")
    page.wait_for_selector("#page-body")
    page.wait_for_timeout(700)  # let the mutation socket connect

    result = execute_tool(
        server,
        key,
        "notizen_update_page",
        {
            "page_id": first.pk,
            "title": "Vom Copilot",
            "html": '<h2>Neu vom Agenten</h2><img src="x" onerror="alert(1)"><script>alert(2)</script>',
        },
    )
    assert result["ok"], result
    page.locator("#page-body h2", has_text="Neu vom Agenten").wait_for(timeout=5000)  # no reload
    assert page.input_value("#page-title") == "Vom Copilot"
    assert "flash-highlight" in (page.get_attribute("#page-body", "class") or "")
    assert "onerror" not in page.inner_html("#page-body")

    created = execute_tool(server, key, "notizen_create_page", {"note_id": note.pk, "title": "Zweite Seite"})
    assert created["ok"], created
    page.locator("#page-tabs a", has_text="Zweite Seite").wait_for(timeout=5000)

    folder = execute_tool(server, key, "notizen_create_folder", {"name": "Mandanten live"})
    page.locator(f'#note-folders [data-folder-id="{folder["output"]["folder"]["id"]}"]').wait_for(
        timeout=5000
    )
    renamed = execute_tool(
        server, key, "notizen_update_note", {"note_id": note.pk, "name": "Jahresgespräch 2026"}
    )
    assert renamed["ok"], renamed
    page.locator("#note-name", has_text="Jahresgespräch 2026").wait_for(timeout=5000)
    page.locator("#note-list .note-name", has_text="Jahresgespräch 2026").wait_for(timeout=5000)
    page.screenshot(path="/tmp/notes-e2e.png", full_page=True)

    page.click("#page-body")
    page.keyboard.press("End")
    page.keyboard.type(" Ergänzung von Anna")
    page.click("#save-page")
    # the page's own "saved" text may already show from before the action: wait on the database
    assert wait_for(lambda: "Ergänzung von Anna" in NotePage.objects.get(pk=first.pk).text, timeout=10)

    # Someone else saves while Anna types: nothing of hers is lost, she decides which version wins.
    page.click("#page-body")
    page.keyboard.press("End")
    page.keyboard.type(" noch mehr")
    other = execute_tool(server, key, "notizen_update_page", {"page_id": first.pk, "text": "Fremde Änderung"})
    assert other["ok"], other
    page.wait_for_selector("#page-changed:not([hidden])", timeout=5000)
    assert "noch mehr" in page.inner_text("#page-body")  # her unsaved text stays in the editor
    page.click("#save-page")  # a plain save is refused: the version she edited is stale
    page.locator("#save-state.failed").wait_for(timeout=5000)
    assert NotePage.objects.get(pk=first.pk).text == "Fremde Änderung"
    page.click("#keep-mine")
    page.wait_for_selector("#page-changed", state="hidden", timeout=5000)
    assert "noch mehr" in NotePage.objects.get(pk=first.pk).text
    assert dialogs == []
