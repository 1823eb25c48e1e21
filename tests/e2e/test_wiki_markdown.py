"""In Chromium: a [[Page]] link on a wiki page opens that page, a link to a missing page opens
the new-page form with its title; the editor's preview shows a table as it is typed; the note
editor's "Markdown formatieren" turns a Markdown table into a table that is saved."""

import pytest

from apps.notes.models import NotePage
from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.notes.factories import NoteFactory, NotePageFactory
from tests.waiting import wait_for
from tests.wiki.factories import WikiPageFactory

pytestmark = pytest.mark.e2e

TABLE = "| Frist | Tage |\n|---|---|\n| Einspruch | 30 |"


def test_wiki_links_open_pages_and_the_preview_shows_a_table(server, page):
    user = UserFactory(email="anna@kanzlei.example")
    WikiPageFactory(slug="fristenkontrolle", title="Fristenkontrolle", body="Täglich prüfen.", author=user)
    WikiPageFactory(
        slug="ablauf",
        title="Ablauf",
        body="Siehe [[Fristenkontrolle|die Kontrolle]] und [[Urlaub]].",
        author=user,
    )
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, server, user.email)

    page.goto(f"{server}/wiki/ablauf/")
    missing = page.locator(".wiki-body a.wikilink-missing", has_text="Urlaub")
    assert missing.get_attribute("href") == "/wiki/neu/?title=Urlaub"
    page.locator(".wiki-body a.wikilink", has_text="die Kontrolle").click()
    page.wait_for_url(f"{server}/wiki/fristenkontrolle/")
    assert page.locator("h1").inner_text() == "Fristenkontrolle"

    page.goto(f"{server}/wiki/ablauf/")
    missing.click()
    page.wait_for_url(f"{server}/wiki/neu/?title=Urlaub")
    assert page.input_value("#id_title") == "Urlaub"

    page.goto(f"{server}/wiki/ablauf/bearbeiten/")
    page.locator("#wiki-preview a.wikilink").wait_for(timeout=5000)  # rendered on open
    page.fill("#id_body", f"## Fristen\n\n{TABLE}\n\n<script>window.hacked = 1</script>")
    page.locator("#wiki-preview table td", has_text="Einspruch").wait_for(timeout=5000)
    assert page.locator("#wiki-preview h3", has_text="Fristen").count() == 1
    assert page.evaluate("window.hacked") is None
    assert not errors, errors


def test_note_markdown_becomes_a_saved_table(server, page):
    user = UserFactory(email="anna@kanzlei.example")
    note = NoteFactory(name="Fristen", visibility="private", owner=user)
    notes_page = NotePageFactory(note=note, title="Übersicht", html="")
    log_in(page, server, user.email)
    page.goto(f"{server}/notizen/{note.pk}/")
    body = page.locator("#page-body")
    body.click()
    for line in TABLE.split("\n"):
        page.keyboard.type(line)
        page.keyboard.press("Enter")
    page.click("#format-markdown")
    page.locator("#page-body table td", has_text="Einspruch").wait_for(timeout=5000)
    assert wait_for(lambda: "<table>" in NotePage.objects.get(pk=notes_page.pk).html, timeout=10)
