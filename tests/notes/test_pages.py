"""The Notizen page: renders, searches, paginates, saves through the services (with conflicts),
never shows another person's private note, and never renders unsanitized HTML."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.notes.models import Note, NoteFolder, NotePage

pytestmark = pytest.mark.django_db


def test_index_renders_folders_notes_and_the_empty_editor(web, shared_folder, make_note):
    make_note("Jahresgespräch Vogel", folder=shared_folder)
    response = web.get(reverse("notes:index"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Mandanten" in body and "Jahresgespräch Vogel" in body
    assert 'id="note-folders"' in body and 'id="note-list"' in body and 'id="note-editor"' in body
    assert "notes-editor.js" in body and "notes.css" in body


def test_empty_states(web):
    body = web.get(reverse("notes:index")).content.decode()
    assert 'class="empty muted"' in body
    assert 'class="empty muted"' in web.get(reverse("notes:index"), {"q": "zzz"}).content.decode()


def test_note_page_opens_the_editor_with_sanitized_html(web, anna, make_note):
    note = make_note("Protokoll", pages=2, visibility="private", owner=anna)
    # Even a row written around the services is sanitized again when rendered.
    NotePage.objects.filter(note=note, ordinal=1).update(
        html='<p>ok</p><img src=x onerror="alert(1)"><script>alert(2)</script><a href="javascript:alert(3)">x</a>'
    )
    second = note.pages.get(ordinal=1)
    body = web.get(reverse("notes:note", args=[note.pk]), {"page_id": second.pk}).content.decode()
    editor = body[body.index('id="page-body"') : body.index("page-attachments")]
    assert "<p>ok</p>" in editor
    assert "onerror" not in editor and "<script" not in editor and "javascript:" not in editor
    assert f'data-page-id="{second.pk}"' in body and 'contenteditable="true"' in body
    record = json.loads(body.split('id="page-record" type="application/json">')[1].split("</script>")[0])
    assert record["id"] == second.pk


def test_search_and_folder_filter(web, shared_folder, make_note):
    make_note("Meier GmbH Einspruch", folder=shared_folder)
    make_note("Schulz Bäckerei")
    body = web.get(reverse("notes:list"), {"q": "meier"}).content.decode()
    assert "Meier GmbH Einspruch" in body and "Schulz Bäckerei" not in body
    body = web.get(reverse("notes:index"), {"folder": shared_folder.pk}).content.decode()
    listing = body[body.index('id="note-list"') :]
    assert "Meier GmbH" in listing and "Schulz" not in listing


def test_list_paginates(web, make_note):
    for i in range(35):
        make_note(f"Notiz {i:02d}")
    first = web.get(reverse("notes:index")).content.decode()
    assert "Notiz 34" in first and "Notiz 00" not in first
    assert "Notiz 00" in web.get(reverse("notes:index"), {"p": 2}).content.decode()


def test_query_counts_are_constant(web, anna, make_note):
    def queries(url):
        with CaptureQueriesContext(connection) as ctx:
            assert web.get(url).status_code == 200
        return len(ctx.captured_queries)

    note = make_note("offen", pages=2)
    url = reverse("notes:note", args=[note.pk])
    few = (queries(reverse("notes:index")), queries(url))
    for i in range(25):
        make_note(f"n{i}", pages=2, folder=NoteFolder.objects.create(name=f"f{i}"))
    assert (queries(reverse("notes:index")), queries(url)) == few


def test_another_persons_private_note_is_invisible(client, ben, private_note, private_folder):
    client.force_login(ben)
    assert client.get(reverse("notes:note", args=[private_note.pk])).status_code == 404
    body = client.get(reverse("notes:index")).content.decode()
    assert "Annas Geheimnis" not in body and "Persönlich" not in body
    page = private_note.pages.get()
    assert client.get(reverse("notes:page-json", args=[page.pk])).status_code == 404
    saved = client.post(
        reverse("notes:save-page", args=[page.pk]),
        json.dumps({"html": "<p>x</p>"}),
        content_type="application/json",
    )
    assert saved.status_code == 404 and saved.json()["code"] == "note_page_not_found"
    assert client.post(reverse("notes:delete-note", args=[private_note.pk])).status_code == 404
    assert NotePage.objects.get().html == "<p>Inhalt</p>"


def test_editor_save_sanitizes_and_detects_stale_versions(web, make_note):
    page = make_note("x").pages.get()
    url = reverse("notes:save-page", args=[page.pk])
    saved = web.post(
        url,
        json.dumps(
            {
                "title": "Neu",
                "html": '<p onclick="x">Hallo<script>alert(1)</script></p>',
                "expected_version": 1,
            }
        ),
        content_type="application/json",
    )
    assert saved.status_code == 200 and saved.json()["page"]["html"] == "<p>Hallo</p>"
    stale = web.post(
        url, json.dumps({"html": "<p>alt</p>", "expected_version": 1}), content_type="application/json"
    )
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    assert stale.json()["details"]["page"]["title"] == "Neu"
    bad = web.post(url, "kein json", content_type="application/json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_input"
    wrong = web.post(url, json.dumps({"html": 5}), content_type="application/json")
    assert wrong.status_code == 400 and wrong.json()["code"] == "invalid_input"
    assert web.get(reverse("notes:page-json", args=[page.pk])).json()["page"]["version"] == 2


def test_forms_create_folder_note_page_and_update(web, anna):
    web.post(reverse("notes:create-folder"), {"name": "Kanzlei", "visibility": "shared"})
    folder = NoteFolder.objects.get()
    response = web.post(reverse("notes:create-note"), {"name": "Checkliste", "folder": folder.pk})
    note = Note.objects.get()
    assert response.status_code == 302 and response.url == reverse("notes:note", args=[note.pk])
    assert note.folder == folder and note.visibility == "shared" and note.pages.count() == 1
    web.post(reverse("notes:create-page", args=[note.pk]))
    assert note.pages.count() == 2
    web.post(
        reverse("notes:update-note", args=[note.pk]),
        {"name": "Checkliste 2026", "folder": "", "visibility": "private"},
    )
    note.refresh_from_db()
    assert (note.name, note.folder_id, note.visibility) == ("Checkliste 2026", None, "private")
    web.post(reverse("notes:delete-page", args=[note.pages.last().pk]))
    assert note.pages.count() == 1
    web.post(reverse("notes:delete-note", args=[note.pk]))
    assert not Note.objects.exists()
    web.post(reverse("notes:delete-folder", args=[folder.pk]))
    assert not NoteFolder.objects.exists()


def test_create_note_without_a_name_shows_an_error(web):
    response = web.post(reverse("notes:create-note"), {"name": ""}, follow=True)
    assert response.status_code == 200 and not Note.objects.exists()
    assert 'class="messages"' in response.content.decode()


def test_folder_partial_renders(web, shared_folder):
    assert "Mandanten" in web.get(reverse("notes:folders")).content.decode()


def test_anonymous_users_are_sent_to_login(client):
    assert client.get(reverse("notes:index")).status_code == 302


def test_admin_screens_render_and_hide_private_pages(
    client, admin_user, private_note, shared_folder, make_note
):
    shared = make_note("Geteilte Notiz", folder=shared_folder)
    client.force_login(admin_user)
    for url in (
        "/admin/notes/note/",
        "/admin/notes/notefolder/",
        f"/admin/notes/notefolder/{shared_folder.pk}/change/",
    ):
        assert client.get(url).status_code == 200, url
    assert "Seite 1" in client.get(f"/admin/notes/note/{shared.pk}/change/").content.decode()
    private_body = client.get(f"/admin/notes/note/{private_note.pk}/change/").content.decode()
    assert "Inhalt" not in private_body
    client.post(
        f"/admin/notes/notefolder/{shared_folder.pk}/change/", {"name": "Mandanten neu", "sort_order": 3}
    )
    shared_folder.refresh_from_db()
    assert (shared_folder.name, shared_folder.sort_order, shared_folder.version) == ("Mandanten neu", 3, 2)
