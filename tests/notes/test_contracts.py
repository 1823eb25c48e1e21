"""The records the tools and live events send are exactly the declared output models (the REST
API checks its answers itself, in `apps.core.surfaces.api.dump`)."""

import pytest

from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.notes import contracts as c
from apps.notes import services
from apps.notes.contracts import NoteCreate, NoteFolderCreate, NotePageUpdate
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


def test_tool_answers_match_the_output_models(anna_ctx, shared_folder):
    created = dispatch(
        "notizen_create_note",
        {"name": "Protokoll", "folder_id": shared_folder.pk, "html": "<p>Hallo</p>"},
        anna_ctx,
    )
    assert created.ok, created.message
    c.NoteWithFirstPage.model_validate(created.output)
    note_id = created.output["note"]["id"]
    page = dispatch(
        "notizen_create_page",
        {
            "note_id": note_id,
            "title": "Memo",
            "asset_items": [{"id": "b1", "kind": "image", "url": "/media/b1.png", "width": 20}],
            "audio_attachments": [{"id": "a1", "title": "Diktat", "duration_ms": 5000}],
        },
        anna_ctx,
    )
    assert page.ok, page.message
    c.NotePageResult.model_validate(page.output)
    c.NoteWithPages.model_validate(dispatch("notizen_get_note", {"note_id": note_id}, anna_ctx).output)
    c.NoteListPage.model_validate(dispatch("notizen_list_notes", {}, anna_ctx).output)
    c.NoteFolderList.model_validate(dispatch("notizen_list_folders", {}, anna_ctx).output)
    folder = dispatch("notizen_create_folder", {"name": "Neu"}, anna_ctx)
    c.NoteFolderResult.model_validate(folder.output)


def test_event_records_match_the_output_models(as_anna, as_robot):
    services.create_folder(as_anna, build(NoteFolderCreate, name="Ordner"))
    _note, page = services.create_note(as_anna, build(NoteCreate, name="Groß", visibility="shared"))
    services.create_note(as_robot, build(NoteCreate, name="vom Briefing"))
    services.update_page(as_anna, page.pk, build(NotePageUpdate, text="Wort " * 20_000))
    seen = set()
    for event in MutationEvent.objects.all():
        for action in event.ui_actions:
            record = action.get("record")
            if record is None:
                continue
            models = {"note-folders": c.NoteFolderOut, "notes": c.NoteOut, "note-pages": c.NotePageEventOut}
            models[action["list"]].model_validate(record)
            seen.add(action["list"])
    assert seen == {"note-folders", "notes", "note-pages"}
