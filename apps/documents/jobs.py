"""Celery jobs of the documents domain (thin: they take ids and call the processing service)."""

from __future__ import annotations

from celery import shared_task

from apps.documents import processing, storage, workflow

EXTRACT_TASK = "apps.documents.jobs.extract_document"
WORKFLOW_TASK = "apps.documents.jobs.run_document_workflow"
SWEEP_TASK = "apps.documents.jobs.sweep_orphan_files"


@shared_task(name=EXTRACT_TASK, soft_time_limit=300, time_limit=360, acks_late=True)
def extract_document(document_id: int) -> str | None:
    """Extract the text of one document (PDF, DOCX, text, Markdown, HTML, e-mail)."""
    return processing.run_extraction(int(document_id))


@shared_task(name=WORKFLOW_TASK, soft_time_limit=240, time_limit=300, acks_late=True)
def run_document_workflow(document_id: int, content_hash: str | None = None) -> str | None:
    """After extraction: summary, tasks and a deadline by the configured model (see workflow.py).
    `content_hash` pins the run to the extraction that queued it."""
    return workflow.run_workflow(int(document_id), content_hash)


@shared_task(name=SWEEP_TASK)
def sweep_orphan_files() -> int:
    """Nightly: files left behind by rolled-back uploads (no document row) are removed."""
    return storage.sweep_orphan_files()
