"""Running the text extraction of one document (called by the Celery job, thin on its own).

The document row is locked only for the short state changes, never while a large PDF is parsed;
a document deleted or replaced meanwhile is left alone. The end is always an explicit state:
`done`, `empty`, `unsupported_format` or `extraction_failed` with a reason, never an empty success.
"""

from __future__ import annotations

import logging

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from apps.documents import events, extraction
from apps.documents.models import Document
from apps.documents.services import announce_text

logger = logging.getLogger(__name__)


def _locked(document_id: int) -> Document | None:
    return (
        Document.objects.select_for_update(of=("self",))
        .select_related("folder")
        .defer("search")
        .filter(pk=document_id)
        .first()
    )


def _set_state(document: Document, status: str, reason: str = "", detail: str = "") -> None:
    document.extraction_status = status
    document.extraction_error = reason
    document.extraction_message = detail[:500]


def run_extraction(document_id: int) -> str | None:
    """Extract and store the text; returns the final state (None: the document is gone)."""
    with transaction.atomic():
        document = _locked(document_id)
        if document is None:
            return None
        content_hash = document.content_hash
        _set_state(document, Document.Extraction.RUNNING)
        document.save(update_fields=["extraction_status", "extraction_error", "extraction_message"])
        events.extraction_progress(document, 0)

    def progress(percent: int) -> None:
        document.extraction_status = Document.Extraction.RUNNING
        events.extraction_progress(document, percent)

    result = None
    status, reason, detail = Document.Extraction.DONE, "", ""
    try:
        with document.file.open("rb") as handle:
            data = handle.read()
        result = extraction.extract(data, document.mime_type, progress=progress)
    except FileNotFoundError:
        status, reason = Document.Extraction.FAILED, "file_missing"
    except extraction.Unsupported:
        status, reason = Document.Extraction.UNSUPPORTED, "unsupported_format"
    except extraction.ExtractionFailed as exc:
        status, reason, detail = Document.Extraction.FAILED, exc.reason, exc.detail
    except SoftTimeLimitExceeded:
        status, reason = Document.Extraction.FAILED, "timeout"
    except Exception:  # an extractor bug must end visibly, not leave the document "running"
        logger.exception("extraction of document %s failed", document_id)
        status, reason = Document.Extraction.FAILED, "internal_error"
    if result is not None and not result.text.strip():
        status, reason = Document.Extraction.EMPTY, "no_text"

    with transaction.atomic():
        document = _locked(document_id)
        if document is None or document.content_hash != content_hash:
            return None
        _set_state(document, status, reason, detail)
        document.extracted_text = (
            result.text if result is not None and status == Document.Extraction.DONE else ""
        )
        document.sections = (
            result.sections if result is not None and status == Document.Extraction.DONE else []
        )
        document.page_count = result.page_count if result is not None else None
        document.extracted_at = timezone.now()
        document.version += 1
        document.save()
        announce_text(document)
        if status == Document.Extraction.DONE:
            from apps.documents import workflow

            workflow.mark_pending(document)  # its job is queued after this commit
        events.extraction_progress(document, 100)
        from apps.documents.records import with_relations

        fresh = with_relations(Document.objects.filter(pk=document.pk)).get()
        events.document_changed(fresh, f"documents.extraction.{status}")
    return status
