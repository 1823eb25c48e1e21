"""Notes link an Akte: `case_id` on the notizen_* tools, the REST API and the note settings form;
a case the caller cannot see answers `case_not_found` and nothing is written. The case page lists
the case's notes the viewer may see."""

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.clients.models import Case
from apps.mutations.models import MutationEvent
from apps.notes.models import Note
from apps.tools.dispatcher import dispatch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    return dispatch(tool_name, args, ctx)


@pytest.fixture
def akte(meier):
    return Case.objects.create(client=meier, reference="2026-0042", subject="Einspruch ESt 2024")


@pytest.fixture
def hidden_case(monkeypatch, meier):
    from apps.clients import visibility

    hidden = Case.objects.create(client=meier, reference="2026-0666", subject="Geheimsache")
    original = visibility.visible_cases
    monkeypatch.setattr(
        visibility, "visible_cases", lambda principal: original(principal).exclude(pk=hidden.pk)
    )
    return hidden


def test_tools_create_filter_update_and_clear(anna_ctx, akte):
    created = call(anna_ctx, "notizen_create_note", name="Gesprächsnotiz", case_id=akte.pk, text="Hallo")
    assert created.ok, created.message
    note = created.output["note"]
    assert note["case_id"] == akte.pk and note["case"]["reference"] == "2026-0042"
    assert note["case"]["url"] == reverse("clients:case", args=[akte.pk])
    upsert = next(
        a for a in MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions if a["type"] == "upsert"
    )
    assert upsert["record"]["case_id"] == akte.pk
    other = call(anna_ctx, "notizen_create_note", name="Andere").output["note"]
    listed = call(anna_ctx, "notizen_list_notes", case_id=akte.pk).output
    assert [n["id"] for n in listed["notes"]] == [note["id"]]
    linked = call(anna_ctx, "notizen_update_note", note_id=other["id"], case_id=akte.pk)
    assert linked.ok and linked.output["note"]["case_id"] == akte.pk
    cleared = call(anna_ctx, "notizen_update_note", note_id=other["id"], clear_fields=["case_id"])
    assert cleared.ok and cleared.output["note"]["case"] is None


@pytest.mark.parametrize("which", ["unknown", "hidden"])
def test_unknown_or_invisible_case_is_refused_and_nothing_written(
    anna_ctx, make_note, anna, hidden_case, which
):
    case_id = hidden_case.pk if which == "hidden" else 424242
    note = make_note("Vorhanden", owner=anna)
    created = call(anna_ctx, "notizen_create_note", name="Neu", case_id=case_id)
    assert not created.ok and created.code == "case_not_found"
    assert created.output["field_errors"] == {"case_id": created.message}
    updated = call(anna_ctx, "notizen_update_note", note_id=note.pk, case_id=case_id, name="Umbenannt")
    assert updated.code == "case_not_found"
    assert call(anna_ctx, "notizen_list_notes", case_id=case_id).code == "case_not_found"
    assert Note.objects.count() == 1
    assert Note.objects.get().name == "Vorhanden" and Note.objects.get().version == 1
    assert not MutationEvent.objects.exists()


@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_api_create_filter_and_clear_by_null(api, akte):
    created = api.post("/api/v1/notes/", {"name": "Telefonat", "case_id": akte.pk}, format="json")
    assert created.status_code == 201, created.content
    note = created.json()["note"]
    assert note["case"]["id"] == akte.pk
    api.post("/api/v1/notes/", {"name": "Andere"}, format="json")
    listed = api.get("/api/v1/notes/", {"case_id": akte.pk}).json()
    assert [n["id"] for n in listed["notes"]] == [note["id"]]
    patched = api.patch(f"/api/v1/notes/{note['id']}", {"case_id": None}, format="json")
    assert patched.status_code == 200 and patched.json()["note"]["case"] is None
    missing = api.post("/api/v1/notes/", {"name": "X", "case_id": 424242}, format="json")
    assert missing.status_code == 404 and missing.json()["code"] == "case_not_found"
    assert Note.objects.count() == 2


def test_settings_form_links_a_case_and_the_case_page_lists_it(web, anna, make_note, akte):
    note = make_note("Besprechung", visibility="shared")
    editor = web.get(reverse("notes:note", args=[note.pk])).content.decode()
    assert 'name="case"' in editor and "2026-0042" in editor
    response = web.post(
        reverse("notes:update-note", args=[note.pk]), {"name": "Besprechung", "folder": "", "case": akte.pk}
    )
    assert response.status_code == 302
    assert Note.objects.get(pk=note.pk).case_id == akte.pk
    body = web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    assert 'id="case-notes"' in body and "Besprechung" in body
    # a form without the picker leaves the case alone
    web.post(reverse("notes:update-note", args=[note.pk]), {"name": "Besprechung 2", "folder": ""})
    assert Note.objects.get(pk=note.pk).case_id == akte.pk


def test_new_note_from_the_case_page(web, akte):
    response = web.post(reverse("notes:create-note"), {"name": "Aktenvermerk", "case": akte.pk})
    note = Note.objects.get()
    assert response.status_code == 302 and note.case_id == akte.pk


def test_other_peoples_private_notes_stay_off_the_case_page(web, make_note, akte):
    ben = UserFactory(email="ben@kanzlei.example")
    make_note("Bens Vermerk", visibility="private", owner=ben, case=akte)
    make_note("Gemeinsamer Vermerk", visibility="shared", case=akte)
    body = web.get(reverse("clients:case", args=[akte.pk])).content.decode()
    assert "Gemeinsamer Vermerk" in body and "Bens Vermerk" not in body
