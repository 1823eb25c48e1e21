"""Each documents_* tool: success, bad input (clear code, nothing written), permission; constant
query counts for the list tools."""

from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.documents import folders
from apps.documents.models import Document, Folder, ShareLink
from apps.mutations.models import MutationEvent
from apps.tools import registry
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.documents.factories import DocumentFactory, FolderFactory

pytestmark = pytest.mark.django_db

TOOLS = [
    "documents_list",
    "documents_get",
    "documents_list_folders",
    "documents_create",
    "documents_create_folder",
    "documents_update_folder",
    "documents_delete_folder",
    "documents_update",
    "documents_move",
    "documents_delete",
    "documents_create_share",
    "documents_revoke_share",
]


def call(ctx, tool_name, /, **args):
    # As if a person approved each call (deletes wait for one by default): these tests are about
    # the tools themselves; the approval step is tested in tests/approvals.
    return dispatch(tool_name, args, replace(ctx, approved=True))


def test_all_tools_are_registered_and_core():
    for name in TOOLS:
        t = registry.get(name)
        assert t is not None and t.family == "documents" and not t.is_gated, name


def test_document_lifecycle(anna_ctx, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        created = call(
            anna_ctx, "documents_create", title="Aktennotiz Meier", content="# Termin\nFrist 31.12."
        )
    assert created.ok, created.message
    doc = created.output["document"]
    assert doc["mime_type"] == "text/markdown" and doc["filename"] == "Aktennotiz Meier.md"
    assert created.mutation_event_id is not None
    live = MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions  # shared: the fan-out
    assert any(a.get("type") == "reload_topic" for a in live)

    got = call(anna_ctx, "documents_get", document_id=doc["id"])
    assert got.ok and "Frist 31.12." in got.output["text"]
    assert got.output["document"]["extraction"]["status"] == "done"
    assert got.output["sections"][0]["title"] == "Termin"

    listed = call(anna_ctx, "documents_list", query="aktennotiz")
    assert listed.output["total"] == 1

    folder = call(anna_ctx, "documents_create_folder", name="Meier GmbH").output["folder"]
    moved = call(anna_ctx, "documents_move", document_id=doc["id"], folder_id=folder["id"])
    assert moved.ok and moved.output["document"]["folder"]["id"] == folder["id"]
    assert call(anna_ctx, "documents_list", folder_id=folder["id"]).output["total"] == 1

    fields = [{"name": "Steuerjahr", "value": 2025}, {"name": "Steuernummer", "value": "143/140/70033"}]
    version = moved.output["document"]["version"]
    updated = call(
        anna_ctx,
        "documents_update",
        document_id=doc["id"],
        title="Aktennotiz Meier GmbH",
        tax_fields=fields,
        expected_version=version,
    )
    assert updated.ok and updated.output["document"]["tax_fields"] == {
        "Steuerjahr": 2025,
        "Steuernummer": "143/140/70033",
    }
    patched = call(
        anna_ctx,
        "documents_update",
        document_id=doc["id"],
        tax_fields=[{"name": "Steuernummer", "value": None}],
    )
    assert patched.output["document"]["tax_fields"] == {"Steuerjahr": 2025}
    stale = call(anna_ctx, "documents_update", document_id=doc["id"], title="x", expected_version=1)
    assert stale.code == "version_conflict"

    share = call(anna_ctx, "documents_create_share", document_id=doc["id"], expires_in_days=30)
    assert share.ok and share.output["created"] and share.output["share"]["url"].startswith("/s/")
    same = call(anna_ctx, "documents_create_share", document_id=doc["id"])
    assert same.output["share"]["token"] == share.output["share"]["token"] and not same.output["created"]
    assert call(anna_ctx, "documents_revoke_share", document_id=doc["id"]).ok
    assert call(anna_ctx, "documents_revoke_share", document_id=doc["id"]).code == "share_not_found"

    renamed = call(anna_ctx, "documents_update_folder", folder_id=folder["id"], name="Meier")
    assert renamed.ok and renamed.output["folder"]["name"] == "Meier"
    refused = call(anna_ctx, "documents_delete_folder", folder_id=folder["id"])
    assert refused.code == "folder_not_empty" and Folder.objects.filter(pk=folder["id"]).exists()

    with django_capture_on_commit_callbacks(execute=True):
        assert call(anna_ctx, "documents_delete", document_id=doc["id"]).ok
    assert not Document.objects.exists()
    assert call(anna_ctx, "documents_delete_folder", folder_id=folder["id"]).ok


def test_list_folders_includes_persoenlich(anna_ctx):
    names = [f["name"] for f in call(anna_ctx, "documents_list_folders").output["folders"]]
    assert "Persönlich" in names


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("documents_create", {"title": ""}, "invalid_arguments"),
        ("documents_create", {"title": "x" * 400}, "invalid_arguments"),
        ("documents_create", {"title": "ok", "folder_id": 987654}, "folder_not_found"),
        ("documents_create", {"title": "ok", "client_ids": [987654]}, "client_not_found"),
        ("documents_create", {"title": "ok", "path": "../x"}, "invalid_arguments"),
        ("documents_get", {"document_id": "abc"}, "invalid_arguments"),
        ("documents_get", {"document_id": 987654}, "document_not_found"),
        ("documents_list", {"limit": 5000}, "invalid_arguments"),
        ("documents_list", {"folder_id": 987654}, "folder_not_found"),
        ("documents_update", {"document_id": 987654, "title": "x"}, "document_not_found"),
        ("documents_move", {"document_id": 987654}, "document_not_found"),
        ("documents_delete", {"document_id": 987654}, "document_not_found"),
        ("documents_create_folder", {"name": ""}, "invalid_arguments"),
        ("documents_create_folder", {"name": "a/b"}, "invalid_input"),
        ("documents_create_folder", {"name": "x", "parent_id": 987654}, "folder_not_found"),
        ("documents_update_folder", {"folder_id": 987654, "name": "x"}, "folder_not_found"),
        ("documents_delete_folder", {"folder_id": 987654}, "folder_not_found"),
        ("documents_create_share", {"document_id": 987654}, "document_not_found"),
        ("documents_create_share", {"document_id": 1, "expires_in_days": 0}, "invalid_arguments"),
        ("documents_revoke_share", {"document_id": 987654}, "document_not_found"),
    ],
)
def test_bad_input_has_a_clear_code_and_writes_nothing(anna_ctx, media_root, name, args, code):
    result = dispatch(name, args, anna_ctx)
    assert (result.ok, result.code) == (False, code), result.message
    assert result.message
    assert not Document.objects.exists() and not ShareLink.objects.exists()
    assert not Folder.objects.filter(is_home=False).exists()
    assert not MutationEvent.objects.exists()
    assert not any(p.is_file() for p in media_root.rglob("*"))


def test_another_persons_private_document_is_unreachable(anna_ctx, ben_ctx, as_robot, as_anna):
    home = folders.ensure_home_folder(as_anna)
    doc = DocumentFactory(folder=home, title="Privat")
    for ctx in (ben_ctx, ToolContext(principal=as_robot)):
        assert call(ctx, "documents_get", document_id=doc.pk).code == "document_not_found"
        assert call(ctx, "documents_update", document_id=doc.pk, title="gehackt").code == "document_not_found"
        assert call(ctx, "documents_move", document_id=doc.pk).code == "document_not_found"
        assert call(ctx, "documents_delete", document_id=doc.pk).code == "document_not_found"
        assert call(ctx, "documents_create_share", document_id=doc.pk).code == "document_not_found"
        assert call(ctx, "documents_revoke_share", document_id=doc.pk).code == "document_not_found"
        assert call(ctx, "documents_list").output["total"] == 0
        assert call(ctx, "documents_create", title="x", folder_id=home.pk).code == "folder_not_found"
        assert call(ctx, "documents_create_folder", name="x", parent_id=home.pk).code == "folder_not_found"
        assert call(ctx, "documents_update_folder", folder_id=home.pk, name="x").code == "folder_not_found"
        assert call(ctx, "documents_delete_folder", folder_id=home.pk).code == "folder_not_found"
        assert home.pk not in [f["id"] for f in call(ctx, "documents_list_folders").output["folders"]]
    assert Document.objects.get().title == "Privat" and not ShareLink.objects.exists()


def test_read_only_grant_cannot_write(anna_ctx, ben_ctx, as_anna, ben):
    from apps.documents.visibility import grant

    home = folders.ensure_home_folder(as_anna)
    doc = DocumentFactory(folder=home)
    grant(doc, ben.pk, ("view",))
    assert call(ben_ctx, "documents_get", document_id=doc.pk).ok
    assert call(ben_ctx, "documents_update", document_id=doc.pk, title="x").code == "forbidden"
    assert call(ben_ctx, "documents_delete", document_id=doc.pk).code == "forbidden"
    assert call(ben_ctx, "documents_create_share", document_id=doc.pk).code == "forbidden"


def test_home_folder_is_protected(anna_ctx, as_anna):
    home = folders.ensure_home_folder(as_anna)
    assert call(anna_ctx, "documents_delete_folder", folder_id=home.pk).code == "folder_protected"
    assert call(anna_ctx, "documents_update_folder", folder_id=home.pk, name="x").code == "folder_protected"


def _queries(ctx, name, **args):
    with CaptureQueriesContext(connection) as captured:
        result = dispatch(name, args, ctx)
    assert result.ok, result.message
    return len(captured.captured_queries)


def test_list_tools_have_constant_query_counts(anna_ctx, as_anna, django_assert_max_num_queries):
    from apps.clients.models import Client

    client = Client.objects.create(name="Meier GmbH", client_number="10003")
    home = folders.ensure_home_folder(as_anna)
    shared = FolderFactory(name="Steuern")
    for i in range(3):
        DocumentFactory(folder=shared if i % 2 else home).clients.add(client)
    few_docs = _queries(anna_ctx, "documents_list")
    few_folders = _queries(anna_ctx, "documents_list_folders")
    for i in range(30):
        DocumentFactory(folder=shared if i % 2 else None).clients.add(client)
        FolderFactory(parent=shared)
    with django_assert_max_num_queries(few_docs):
        dispatch("documents_list", {}, anna_ctx)
    with django_assert_max_num_queries(few_folders):
        dispatch("documents_list_folders", {}, anna_ctx)
    assert dispatch("documents_list", {"limit": 200}, anna_ctx).output["total"] == 33
