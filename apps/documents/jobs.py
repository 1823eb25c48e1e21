"""Celery jobs of the documents domain (thin: they take ids and call the processing service)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from apps.core.services import PeriodicJob
from apps.documents import processing, storage

EXTRACT_TASK = "apps.documents.jobs.extract_document"
SWEEP_TASK = "apps.documents.jobs.sweep_orphan_files"

PERIODIC_JOBS = [PeriodicJob("Dokumente: verwaiste Dateien entfernen", SWEEP_TASK, crontab="30 3 * * *")]


@shared_task(name=EXTRACT_TASK, soft_time_limit=300, time_limit=360, acks_late=True)
def extract_document(document_id: int) -> str | None:
    """Extract the text of one document (PDF, DOCX, text, Markdown, HTML, e-mail)."""
    return processing.run_extraction(int(document_id))


def enqueue_extraction(document_id: int) -> None:
    """Called after commit by the services. A deployment may route extraction to its own queue."""
    queue = getattr(settings, "CLAPILOT_DOCUMENTS_QUEUE", None)
    extract_document.apply_async(args=[document_id], **({"queue": queue} if queue else {}))


@shared_task(name=SWEEP_TASK)
def sweep_orphan_files() -> int:
    """Nightly: files left behind by rolled-back uploads (no document row) are removed."""
    return storage.sweep_orphan_files()
