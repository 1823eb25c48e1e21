"""The contract with the documents app, end to end: an uploaded document is indexed in its
scope once its text is extracted, and purged the moment it is deleted."""

import pytest

from apps.core.inputs import build
from apps.documents import folders, processing
from apps.documents import services as documents
from apps.documents.contracts import DocumentCreate
from apps.knowledge import indexing
from apps.knowledge.models import Chunk, KnowledgeFile
from apps.tools.dispatcher import dispatch
from tests.inline_jobs import run_inline

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def inline_jobs(monkeypatch, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    run_inline(monkeypatch, documents.EXTRACT_JOB, processing.run_extraction)
    run_inline(monkeypatch, indexing.INDEX_JOB, indexing.run_job)


def ids(result):
    return [r["id"] for r in result.output["results"]]


def test_a_personal_document_is_indexed_for_its_owner_only_and_purged_on_delete(
    as_anna, anna_ctx, ben_ctx, django_capture_on_commit_callbacks
):
    home = folders.ensure_home_folder(as_anna)
    with django_capture_on_commit_callbacks(execute=True):
        document = documents.create_markdown(
            as_anna,
            build(
                DocumentCreate,
                title="Vollmacht Entwurf",
                content="# Vollmacht\n\nHiermit bevollmächtige ich die Kanzlei, mich gegenüber dem Finanzamt zu vertreten.",
                folder_id=home.pk,
            ),
        )
    file = KnowledgeFile.objects.get(source_type="document", source_id=str(document.pk))
    assert file.status == "indexed" and file.scope == "personal" and file.owner_id == as_anna.user.pk
    assert f"document:{document.pk}" in ids(
        dispatch("context_search", {"query": "Vollmacht Finanzamt"}, anna_ctx)
    )
    assert f"document:{document.pk}" not in ids(
        dispatch("context_search", {"query": "Vollmacht Finanzamt"}, ben_ctx)
    )
    shown = dispatch("documents_get", {"document_id": document.pk}, anna_ctx).output["document"]["indexing"]
    assert shown["status"] == "indexed" and shown["chunks"] == file.chunk_count >= 1
    with django_capture_on_commit_callbacks(execute=True):
        documents.delete_document(as_anna, document.pk)
    assert not KnowledgeFile.objects.filter(pk=file.pk).exists()
    assert not Chunk.objects.filter(file_id=file.pk).exists()
