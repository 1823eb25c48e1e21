"""Each notizen_* tool: success, bad input (ok: false + code, nothing written), permission;
constant query counts for the list tools; module gating."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.mutations.models import MutationEvent
from apps.notes.models import Note, NoteFolder
from apps.tools import gating, registry
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from apps.tools.schema import strict_violations

pytestmark = pytest.mark.django_db

TOOLS = [
    "notizen_list_folders",
    "notizen_create_folder",
    "notizen_list_notes",
    "notizen_get_note",
    "notizen_create_note",
    "notizen_update_note",
    "notizen_create_page",
    "notizen_update_page",
]


def call(ctx, tool_name, /, **args):
    return dispatch(tool_name, args, ctx)


def test_the_seed_tools_are_registered_gated_and_strict():
    for name in TOOLS:
        t = registry.get(name)
        assert t is not None and t.module == "notizen" and t.is_gated
        assert strict_violations(t.schema) == [], name
        assert t.read_only == name.split("_", 1)[1].startswith(("list", "get"))
    assert "name" in registry.get("notizen_create_folder").schema["properties"]
    assert "query" in registry.get("notizen_list_notes").schema["properties"]


def test_folder_note_page_lifecycle(anna_ctx):
    folder = call(anna_ctx, "notizen_create_folder", name="Mandanten")
    assert folder.ok and folder.output["folder"]["visibility"] == "shared"
    live = MutationEvent.objects.get(pk=folder.mutation_event_id).ui_actions  # shared: the fan-out
    assert any(a.get("announce_key") == "notizen.folder.created" for a in live)
    assert folder.mutation_event_id is not None
    fid = folder.output["folder"]["id"]
    assert call(anna_ctx, "notizen_list_folders").output["folders"][0]["note_count"] == 0

    created = call(anna_ctx, "notizen_create_note", name="Jahresgespräch", folder_id=fid, text="Erste Zeile")
    assert created.ok, created.message
    note, first = created.output["note"], created.output["page"]
    assert note["folder_id"] == fid and first["html"] == "<p>Erste Zeile</p>"
    assert MutationEvent.objects.filter(topic="notizen.note.updated").count() == 1

    page = call(
        anna_ctx,
        "notizen_create_page",
        note_id=note["id"],
        title="Memo",
        html="<h2>Memo</h2><script>alert(1)</script>",
        audio_attachments=[
            {"id": "a1", "title": "Diktat", "transcript": "Bitte zurückrufen", "duration_ms": 5000}
        ],
    )
    assert page.ok, page.message
    assert page.output["page"]["html"] == "<h2>Memo</h2>"
    assert page.output["page"]["audio_attachments"][0]["transcript"] == "Bitte zurückrufen"
    live = MutationEvent.objects.get(pk=page.mutation_event_id).ui_actions
    assert any(a.get("announce_key") == "notizen.page.created" for a in live)

    updated = call(
        anna_ctx,
        "notizen_update_page",
        page_id=page.output["page"]["id"],
        html='<p><span style="font-size: 20px">groß</span></p>',
        font_family="Georgia",
        expected_version=1,
    )
    assert updated.ok and updated.output["page"]["version"] == 2
    assert updated.output["page"]["audio_attachments"][0]["id"] == "a1"  # untouched
    assert updated.output["page"]["font_family"] == "Georgia"
    event = MutationEvent.objects.get(pk=updated.mutation_event_id)
    assert event.topic == "notizen.page.updated" and event.ui_actions[0]["record"]["version"] == 2

    renamed = call(
        anna_ctx,
        "notizen_update_note",
        note_id=note["id"],
        name="Jahresgespräch 2026",
        clear_fields=["folder_id"],
    )
    assert renamed.ok and renamed.output["note"]["folder_id"] is None
    assert renamed.output["note"]["name"] == "Jahresgespräch 2026"

    got = call(anna_ctx, "notizen_get_note", note_id=note["id"]).output
    assert [p["title"] for p in got["pages"]] == ["", "Memo"] and got["note"]["version"] == 2

    listed = call(anna_ctx, "notizen_list_notes", query="zurückrufen").output
    assert listed["total"] == 0  # transcripts are metadata, page text is searched
    assert call(anna_ctx, "notizen_list_notes", query="groß").output["total"] == 1


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("notizen_create_folder", {"name": ""}, "invalid_arguments"),
        ("notizen_create_folder", {"name": "x", "parent_id": 987654}, "note_folder_not_found"),
        ("notizen_create_folder", {"name": "x", "visibility": "public"}, "invalid_arguments"),
        ("notizen_create_folder", {"title": "x"}, "invalid_arguments"),
        ("notizen_create_note", {"name": "x" * 400}, "invalid_arguments"),
        ("notizen_create_note", {"name": "x", "folder_id": 987654}, "note_folder_not_found"),
        ("notizen_create_note", {"name": "x", "html": "<p>a</p>", "text": "b"}, "invalid_input"),
        ("notizen_create_note", {"title": "x"}, "invalid_arguments"),
        ("notizen_list_notes", {"folder_id": 987654}, "note_folder_not_found"),
        ("notizen_list_notes", {"limit": 5000}, "invalid_arguments"),
        ("notizen_get_note", {"note_id": "abc"}, "invalid_arguments"),
        ("notizen_get_note", {"note_id": 987654}, "note_not_found"),
        ("notizen_update_note", {"note_id": 987654, "name": "x"}, "note_not_found"),
        ("notizen_create_page", {"note_id": 987654}, "note_not_found"),
        ("notizen_update_page", {"page_id": 987654, "title": "x"}, "note_page_not_found"),
        ("notizen_update_page", {"page_id": 1, "html": 12}, "invalid_arguments"),
        ("notizen_update_page", {"page_id": 1, "font_size": 500}, "invalid_arguments"),
        ("notizen_update_page", {"page_id": 1, "audio_attachments": [{"id": "a"}]}, "invalid_arguments"),
    ],
)
def test_bad_input_has_a_clear_code_and_writes_nothing(anna_ctx, name, args, code):
    result = dispatch(name, args, anna_ctx)
    assert (result.ok, result.code) == (False, code), result.message
    assert result.message
    assert not (Note.objects.exists() or NoteFolder.objects.exists() or MutationEvent.objects.exists())


def test_bad_page_values_are_refused_without_a_change(anna_ctx, make_note):
    page = make_note("x").pages.get()
    for args, code in [
        ({"audio_attachments": [{"id": "a", "title": "t", "mime_type": "text/html"}]}, "invalid_input"),
        # a script link is refused by the typed argument model already (core.contracts.SafeUrl)
        ({"asset_items": [{"id": "a", "url": "javascript:alert(1)"}]}, "invalid_arguments"),
        ({"font_family": "x;}body{color:red"}, "invalid_input"),
        ({"html": "<p>neu</p>", "expected_version": 9}, "version_conflict"),
    ]:
        result = dispatch("notizen_update_page", {"page_id": page.pk, **args}, anna_ctx)
        assert (result.ok, result.code) == (False, code), (args, result.message)
        assert result.output  # field errors or the current record
    page.refresh_from_db()
    assert (page.version, page.html) == (1, "<p>Inhalt</p>") and not MutationEvent.objects.exists()


def test_another_persons_private_note_is_invisible_to_every_tool(
    as_ben, as_robot, private_note, private_folder
):
    page = private_note.pages.get()
    for principal in (as_ben, as_robot):
        ctx = ToolContext(principal=principal)
        assert call(ctx, "notizen_get_note", note_id=private_note.pk).code == "note_not_found"
        assert (
            call(ctx, "notizen_update_note", note_id=private_note.pk, name="gehackt").code == "note_not_found"
        )
        assert call(ctx, "notizen_create_page", note_id=private_note.pk).code == "note_not_found"
        assert (
            call(ctx, "notizen_update_page", page_id=page.pk, html="<p>x</p>").code == "note_page_not_found"
        )
        assert call(ctx, "notizen_list_notes").output["total"] == 0
        assert call(ctx, "notizen_list_notes", query="Geheimnis").output["notes"] == []
        assert call(ctx, "notizen_list_folders").output["folders"] == []
        assert (
            call(ctx, "notizen_create_note", name="x", folder_id=private_folder.pk).code
            == "note_folder_not_found"
        )
    assert Note.objects.get().name == "Annas Geheimnis" and not MutationEvent.objects.exists()


def test_service_principal_cannot_create_private_notes(as_robot):
    result = call(ToolContext(principal=as_robot), "notizen_create_note", name="x", visibility="private")
    assert result.code == "forbidden" and not Note.objects.exists()


def test_uninstalled_module_answers_module_not_installed(anna_ctx):
    gating.set_installed("notizen", False)
    try:
        result = call(anna_ctx, "notizen_list_notes")
        assert (result.ok, result.code) == (False, "module_not_installed:notizen")
    finally:
        gating.set_installed("notizen", True)
    gating.set_policy("minimal")  # notizen belongs to the minimal module set
    try:
        gating.invalidate()
        from apps.tools.models import ModuleInstall

        ModuleInstall.objects.all().delete()
        assert call(anna_ctx, "notizen_list_notes").ok
    finally:
        gating.set_policy("legacy_all")


@pytest.mark.parametrize(
    ("tool", "args"), [("notizen_list_notes", {"limit": 200}), ("notizen_list_folders", {})]
)
def test_list_tool_query_counts_are_constant(anna_ctx, anna, make_note, tool, args):
    from tests.notes.factories import NoteFolderFactory

    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert dispatch(tool, args, anna_ctx).ok
        return len(ctx.captured_queries)

    for i in range(3):
        make_note(f"a{i}", pages=2, folder=NoteFolderFactory())
    count()  # warm the module-install cache
    few = count()
    for i in range(25):
        make_note(f"b{i}", pages=3, visibility="private", owner=anna, folder=NoteFolderFactory())
    assert count() == few
