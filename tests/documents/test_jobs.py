"""Extraction through a real Celery worker."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.core.inputs import build
from apps.documents import services
from apps.documents.contracts import DocumentUpload
from apps.documents.models import Document
from tests.documents.factories import pdf_bytes
from tests.waiting import wait_for
from tests.workers import in_process_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_uploaded_pdf_is_extracted_by_the_worker(as_anna, real_worker):
    with in_process_worker():
        doc = services.upload_document(
            as_anna,
            build(DocumentUpload),
            content=SimpleUploadedFile("bescheid.pdf", pdf_bytes(["Festsetzung 2024"])),
            filename="bescheid.pdf",
        )
        wait_for(
            lambda: Document.objects.get(pk=doc.pk).extraction_status not in ("pending", "running"),
            timeout=60,
        )
    doc = Document.objects.get(pk=doc.pk)
    assert doc.extraction_status == "done", doc.extraction_error
    assert "Festsetzung 2024" in doc.extracted_text and doc.page_count == 1


def test_workflow_job_runs_in_the_worker_after_extraction(
    as_anna, real_worker, chat_model, fake_openai, statuses
):
    """Extraction and then the workflow job, both through the broker and a real worker."""
    import json

    from apps.documents.models import DocumentWorkflow
    from apps.tasks.models import Board, Task

    Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    fake_openai.reply(
        json.dumps({"summary": "Bescheid.", "tasks": [{"title": "Bescheid prüfen"}], "deadline": None})
    )
    with in_process_worker():
        doc = services.upload_document(
            as_anna,
            build(DocumentUpload),
            content=SimpleUploadedFile("bescheid.txt", b"Festsetzung 2024, Einspruch binnen eines Monats."),
            filename="bescheid.txt",
        )
        wait_for(
            DocumentWorkflow.objects.filter(
                document_id=doc.pk, status__in=["done", "failed", "skipped"]
            ).exists,
            timeout=60,
        )
    flow = DocumentWorkflow.objects.get(document_id=doc.pk)
    assert flow.status == "done", (flow.reason, flow.message)
    task = Task.objects.get(source_type="document", source_id=str(doc.pk))
    assert task.title == "Bescheid prüfen"
