"""The editor's autosave goes through the save endpoint with the version it last saw: a stale
autosave is answered with the conflict (and the current page for the banner), never stored."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apps.core.errors import VersionConflict
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.mutations.services import head_id
from apps.notes import services
from apps.notes.contracts import NotePageUpdate

pytestmark = pytest.mark.django_db


def autosave(web, page, html, version):
    return web.post(
        reverse("notes:save-page", args=[page.pk]),
        json.dumps({"title": page.title, "html": html, "expected_version": version}),
        content_type="application/json",
    )


@pytest.fixture
def page(make_note):
    return make_note("Besprechung", visibility="shared").pages.get()


def test_successive_autosaves_each_continue_from_the_last_saved_version(web, page):
    version = page.version
    for text in ("Erst", "Erster Ent", "Erster Entwurf"):
        response = autosave(web, page, f"<p>{text}</p>", version)
        assert response.status_code == 200
        version = response.json()["page"]["version"]
    page.refresh_from_db()
    assert (page.html, page.version) == ("<p>Erster Entwurf</p>", version)


def test_an_autosave_after_a_colleagues_edit_conflicts_and_overwrites_nothing(web, page, as_ben):
    loaded_at = page.version
    services.update_page(
        as_ben, page.pk, build(NotePageUpdate, html="<p>Bens Fassung</p>", expected_version=loaded_at)
    )
    before = head_id()

    response = autosave(web, page, "<p>Annas Fassung</p>", loaded_at)

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "version_conflict"
    assert body["details"]["page"]["html"] == "<p>Bens Fassung</p>"  # what the banner offers
    page.refresh_from_db()
    assert (page.html, page.version) == ("<p>Bens Fassung</p>", loaded_at + 1)
    assert not MutationEvent.objects.filter(id__gt=before).exists()  # nobody is told of a change


def test_keep_mine_saves_against_the_version_the_banner_showed(web, page, as_ben):
    services.update_page(
        as_ben, page.pk, build(NotePageUpdate, html="<p>Bens Fassung</p>", expected_version=page.version)
    )
    conflict = autosave(web, page, "<p>Annas Fassung</p>", page.version).json()
    current = conflict["details"]["page"]["version"]

    response = autosave(web, page, "<p>Annas Fassung</p>", current)

    assert response.status_code == 200
    page.refresh_from_db()
    assert (page.html, page.version) == ("<p>Annas Fassung</p>", current + 1)


def test_service_refuses_a_stale_version_and_keeps_the_row(page, as_anna, as_ben):
    services.update_page(as_ben, page.pk, build(NotePageUpdate, title="Neu", expected_version=page.version))
    with pytest.raises(VersionConflict) as raised:
        services.update_page(
            as_anna,
            page.pk,
            build(NotePageUpdate, title="Alt", html="<p>x</p>", expected_version=page.version),
        )
    assert raised.value.details["page"]["title"] == "Neu"
    page.refresh_from_db()
    assert page.title == "Neu" and page.html != "<p>x</p>"


@pytest.mark.parametrize("version", [True, "1", 1.5, [1]])
def test_an_autosave_with_a_malformed_version_is_refused(web, page, version):
    response = autosave(web, page, "<p>x</p>", version)
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"
    page.refresh_from_db()
    assert page.html != "<p>x</p>"


def test_the_editor_page_loads_the_autosaving_editor(web, page):
    response = web.get(reverse("notes:note", args=[page.note_id]))
    html = response.content.decode()
    assert 'data-save-url="' in html and f'data-page-version="{page.version}"' in html
    assert "notes-editor" in html
