"""Visibility, audiences, validation and the write rules of the Notizen services."""

import pytest

from apps.core.errors import Forbidden, InvalidInput, VersionConflict
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.notes import services
from apps.notes.contracts import (
    NoteCreate,
    NoteFilter,
    NoteFolderCreate,
    NoteFolderUpdate,
    NotePageCreate,
    NotePageUpdate,
    NoteUpdate,
)
from apps.notes.errors import FolderNotFound, NoteNotFound, PageNotFound
from apps.notes.models import Note, NoteFolder, NotePage

pytestmark = pytest.mark.django_db


def events():
    return list(MutationEvent.objects.order_by("id"))


def test_shared_note_is_one_all_users_event_and_starts_with_a_page(
    as_anna, anna, shared_folder, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        note, page = services.create_note(
            as_anna,
            build(
                NoteCreate, name="Besprechung", folder_id=shared_folder.pk, html="<p>Hallo <b>Welt</b></p>"
            ),
        )
    assert note.visibility == "shared" and note.owner == anna  # inherits the folder's visibility
    assert page.ordinal == 0 and page.html == "<p>Hallo <b>Welt</b></p>" and page.text == "Hallo Welt"
    (event,) = events()
    assert (event.audience, event.user_id, event.topic) == ("all", None, "notizen.note.updated")
    assert event.ui_actions[0]["announce_key"] == "notizen.note.created"
    assert event.ui_actions[0]["record"]["name"] == "Besprechung"


def test_private_note_is_invisible_to_others_and_its_events_reach_only_the_owner(as_anna, as_ben, anna):
    note, page = services.create_note(
        as_anna, build(NoteCreate, name="Privat")
    )  # a person's top-level note is private
    assert note.visibility == "private"
    services.update_page(as_anna, page.pk, build(NotePageUpdate, title="Neu"))
    assert {(e.audience, e.user_id) for e in events()} == {("user", anna.pk)}
    with pytest.raises(NoteNotFound):
        services.get_note(as_ben, note.pk)
    with pytest.raises(PageNotFound):
        services.update_page(as_ben, page.pk, build(NotePageUpdate, html="<p>gehackt</p>"))
    with pytest.raises(NoteNotFound):
        services.create_page(as_ben, note.pk, build(NotePageCreate, title="x"))
    with pytest.raises(NoteNotFound):
        services.delete_note(as_ben, note.pk)
    assert services.list_notes(as_ben, NoteFilter()) == ([], 0)
    assert NotePage.objects.get(pk=page.pk).title == "Neu"


def test_service_principals_see_shared_notes_only_and_cannot_own_private_ones(
    as_robot, as_anna, private_note
):
    shared, _ = services.create_note(as_anna, build(NoteCreate, name="geteilt", visibility="shared"))
    notes, total = services.list_notes(as_robot, NoteFilter())
    assert [n.pk for n in notes] == [shared.pk] and total == 1
    robot_note, _ = services.create_note(as_robot, build(NoteCreate, name="vom Briefing"))
    assert robot_note.visibility == "shared" and robot_note.created_by_service is not None
    with pytest.raises(Forbidden):
        services.create_note(as_robot, build(NoteCreate, name="x", visibility="private"))


def test_private_folders_and_placement_rules(as_anna, as_ben, private_folder, shared_folder):
    assert [f.name for f in services.list_folders(as_ben)] == ["Mandanten"]
    with pytest.raises(FolderNotFound):
        services.create_note(as_ben, build(NoteCreate, name="x", folder_id=private_folder.pk))
    with pytest.raises(InvalidInput) as exc:
        services.create_note(
            as_anna, build(NoteCreate, name="x", folder_id=private_folder.pk, visibility="shared")
        )
    assert exc.value.details["field_errors"] == {"folder_id": exc.value.details["field_errors"]["folder_id"]}
    sub = services.create_folder(as_anna, build(NoteFolderCreate, name="Sub", parent_id=private_folder.pk))
    assert sub.visibility == "private" and sub.owner_id == private_folder.owner_id
    with pytest.raises(InvalidInput):
        services.update_folder(
            as_anna, private_folder.pk, build(NoteFolderUpdate, parent_id=sub.pk)
        )  # a cycle
    with pytest.raises(InvalidInput):
        services.update_folder(
            as_anna, shared_folder.pk, build(NoteFolderUpdate, parent_id=private_folder.pk)
        )


def test_folder_note_counts_respect_visibility(as_anna, as_ben, anna, shared_folder, make_note):
    make_note("a", folder=shared_folder)
    make_note("b", folder=shared_folder, visibility="private", owner=anna)
    counts = {f.name: f.note_count for f in services.list_folders(as_ben)}
    assert counts == {"Mandanten": 1}
    assert {f.name: f.note_count for f in services.list_folders(as_anna)} == {"Mandanten": 2}


def test_making_a_shared_note_private_removes_it_from_the_others(as_anna, anna, as_ben, ben):
    note, _ = services.create_note(as_anna, build(NoteCreate, name="Bald privat", visibility="shared"))
    MutationEvent.objects.all().delete()
    with pytest.raises(Forbidden):
        services.update_note(as_ben, note.pk, build(NoteUpdate, visibility="private"))
    services.update_note(as_anna, note.pk, build(NoteUpdate, visibility="private"))
    removal, upsert = events()
    assert (removal.audience, removal.user_id) == ("all_except", anna.pk)
    assert removal.ui_actions[0]["type"] == "remove" and "record" not in removal.ui_actions[0]
    assert (upsert.audience, upsert.user_id) == ("user", anna.pk)
    with pytest.raises(NoteNotFound):
        services.get_note(as_ben, note.pk)


def test_version_conflicts_are_refused_with_the_current_record(as_anna):
    note, page = services.create_note(as_anna, build(NoteCreate, name="v"))
    services.update_page(as_anna, page.pk, build(NotePageUpdate, html="<p>eins</p>", expected_version=1))
    with pytest.raises(VersionConflict) as exc:
        services.update_page(as_anna, page.pk, build(NotePageUpdate, html="<p>alt</p>", expected_version=1))
    assert exc.value.details["page"]["html"] == "<p>eins</p>" and exc.value.details["page"]["version"] == 2
    with pytest.raises(VersionConflict):
        services.update_note(as_anna, note.pk, build(NoteUpdate, name="x", expected_version=5))


def test_page_html_is_sanitized_not_rejected_and_bad_types_are_rejected(as_anna):
    _, page = services.create_note(as_anna, build(NoteCreate, name="x"))
    page = services.update_page(
        as_anna,
        page.pk,
        build(
            NotePageUpdate, html='<p onclick="x">ok<script>alert(1)</script><img src=x onerror=alert(1)></p>'
        ),
    )
    assert page.html == '<p>ok<img src="x"></p>'
    for changes, field in [
        ({"html": 42}, "html"),
        ({"html": "<p>a</p>", "text": "b"}, "html"),
        ({"font_size": 400}, "font_size"),
        ({"font_family": "x;}body{"}, "font_family"),
        ({"audio_attachments": "kein Array"}, "audio_attachments"),
        ({"audio_attachments": [{"id": "a"}]}, "audio_attachments[0].title"),
        (
            {"audio_attachments": [{"id": "a", "title": "t", "mime_type": "text/html"}]},
            "audio_attachments[0].mime_type",
        ),
        (
            {"audio_attachments": [{"id": "a", "title": "t", "duration_ms": -1}]},
            "audio_attachments[0].duration_ms",
        ),
        ({"audio_attachments": [{"id": "a", "title": "t", "evil": 1}]}, "audio_attachments[0].evil"),
        ({"asset_items": [{"id": "a", "url": "javascript:alert(1)"}]}, "asset_items[0].url"),
        ({"asset_items": [{"id": "a"}, {"id": "a"}]}, "asset_items[1].id"),
        ({"color": "red"}, "color"),
    ]:
        with pytest.raises(InvalidInput) as exc:
            services.update_page(as_anna, page.pk, build(NotePageUpdate, **changes))
        assert field in exc.value.details["field_errors"], (changes, exc.value.details)
    assert NotePage.objects.get(pk=page.pk).version == 2


def test_audio_attachments_are_normalized_to_the_documented_shape(as_anna):
    _, page = services.create_note(as_anna, build(NoteCreate, name="x"))
    page = services.update_page(
        as_anna,
        page.pk,
        build(
            NotePageUpdate,
            audio_attachments=[
                {"id": 7, "title": " Memo ", "duration_ms": 1200, "created_at": "2026-01-05T10:00:00Z"}
            ],
        ),
    )
    assert page.audio_attachments == [
        {
            "id": "7",
            "title": "Memo",
            "transcript": None,
            "mime_type": None,
            "file_size": None,
            "duration_ms": 1200,
            "created_at": "2026-01-05T10:00:00+00:00",
        }
    ]


def test_pages_insert_at_a_position_and_a_note_keeps_one_page(as_anna):
    note, first = services.create_note(as_anna, build(NoteCreate, name="x"))
    last = services.create_page(as_anna, note.pk, build(NotePageCreate, title="zwei"))
    inserted = services.create_page(as_anna, note.pk, build(NotePageCreate, title="null", position=0))
    assert [p.title for p in services.note_pages(note)] == ["null", "", "zwei"]
    services.delete_page(as_anna, inserted.pk)
    services.delete_page(as_anna, last.pk)
    with pytest.raises(InvalidInput):
        services.delete_page(as_anna, first.pk)


def test_search_finds_notes_by_name_and_page_content(as_anna, make_note):
    services.create_note(as_anna, build(NoteCreate, name="Meier GmbH", text="nichts"))
    services.create_note(as_anna, build(NoteCreate, name="Protokoll", text="Einspruch gegen den Bescheid"))
    services.create_note(as_anna, build(NoteCreate, name="Anderes", text="Urlaub"))
    assert [n.name for n in services.list_notes(as_anna, build(NoteFilter, query="meier"))[0]] == [
        "Meier GmbH"
    ]
    assert [n.name for n in services.list_notes(as_anna, build(NoteFilter, query="bescheid"))[0]] == [
        "Protokoll"
    ]


def test_only_empty_folders_can_be_deleted(as_anna, shared_folder, make_note):
    make_note("drin", folder=shared_folder)
    with pytest.raises(InvalidInput):
        services.delete_folder(as_anna, shared_folder.pk)
    Note.objects.all().delete()
    services.delete_folder(as_anna, shared_folder.pk)
    assert not NoteFolder.objects.exists()


def test_large_pages_travel_without_content_in_live_events(as_anna):
    _, page = services.create_note(as_anna, build(NoteCreate, name="x"))
    services.update_page(as_anna, page.pk, build(NotePageUpdate, text="Wort " * 20_000))
    action = MutationEvent.objects.filter(topic="notizen.page.updated").get().ui_actions[0]
    assert action["record"]["content_omitted"] is True and action["record"]["html"] is None
