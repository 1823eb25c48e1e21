"""The declared contract is the shape every surface answers with: tool results validate against
the output models (the REST layer checks its own answers), the enums follow the models' choices,
and OpenAPI documents the multipart upload and the binary download."""

from dataclasses import replace
from typing import get_args

import pytest

from apps.documents import contracts as c
from apps.documents import folders
from apps.documents.models import Document, Folder
from apps.tools.dispatcher import dispatch
from tests.documents.factories import DocumentFactory

pytestmark = pytest.mark.django_db


def test_enums_follow_the_model_choices():
    assert {k.value for k in c.FolderKind} == set(Folder.Kind.values)
    assert {s.value for s in c.ExtractionState} == set(Document.Extraction.values)
    assert set(get_args(c.ExtractionStatus)) == set(Document.Extraction.values)


def test_tool_results_are_the_declared_shapes(anna_ctx, as_anna, django_capture_on_commit_callbacks):
    from apps.clients.models import Client

    client = Client.objects.create(name="Meier GmbH", client_number="10003")
    home = folders.ensure_home_folder(as_anna)
    DocumentFactory(folder=home, extraction_status="extraction_failed", extraction_error="encrypted")

    def ok(tool_name, /, **args):
        # As if a person approved each call: the shapes are checked here, the approval step in
        # tests/approvals.
        result = dispatch(tool_name, args, replace(anna_ctx, approved=True))
        assert result.ok, result.message
        return result.output

    with django_capture_on_commit_callbacks(execute=True):
        created = ok("documents_create", title="Notiz", content="# Kopf\nText", client_ids=[client.pk])
    c.DocumentResult.model_validate(created)
    assert created["document"]["clients"][0]["url"]
    assert created["document"]["created_by"]["email"] == as_anna.user.email
    doc_id = created["document"]["id"]
    c.DocumentPage.model_validate(ok("documents_list"))
    c.DocumentWithText.model_validate(ok("documents_get", document_id=doc_id))
    c.FolderList.model_validate(ok("documents_list_folders"))
    folder = c.FolderResult.model_validate(ok("documents_create_folder", name="Steuern")).folder
    c.FolderResult.model_validate(ok("documents_update_folder", folder_id=folder.id, name="Steuern 2026"))
    c.DocumentResult.model_validate(ok("documents_move", document_id=doc_id, folder_id=folder.id))
    c.DocumentResult.model_validate(
        ok("documents_update", document_id=doc_id, tax_fields=[{"name": "Steuerjahr", "value": 2025}])
    )
    c.ShareResult.model_validate(ok("documents_create_share", document_id=doc_id, expires_in_days=3))
    c.Revoked.model_validate(ok("documents_revoke_share", document_id=doc_id))
    with django_capture_on_commit_callbacks(execute=True):
        c.Deleted.model_validate(ok("documents_delete", document_id=doc_id))
    c.Deleted.model_validate(ok("documents_delete_folder", folder_id=folder.id))


@pytest.fixture(scope="module")
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def test_openapi_declares_the_upload_form_and_the_binary_download(schema):
    upload = schema["paths"]["/api/v1/documents/"]["post"]
    assert upload["operationId"] == "documents_upload"
    form = upload["requestBody"]["content"]["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[1]
    properties = schema["components"]["schemas"][form]["properties"]
    assert properties["file"] == {**properties["file"], "type": "string", "format": "binary"}
    assert {"title", "folder_id", "client_ids"} <= set(properties)
    assert "201" in upload["responses"]
    download = schema["paths"]["/api/v1/documents/{document_id}/download"]["get"]["responses"]["200"]
    assert [content["schema"] for content in download["content"].values()] == [
        {"type": "string", "format": "binary"}
    ]
