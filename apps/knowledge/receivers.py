"""The contract with the documents app (`apps.documents.signals`): index a document's text when
it is ready or its indexed metadata changed, purge it synchronously when it is deleted. Both run
inside the documents transaction, so the index never disagrees with a committed document."""

from __future__ import annotations

from django.dispatch import receiver

from apps.documents.signals import document_removed, document_text_ready
from apps.knowledge import indexing

SOURCE_TYPE = "document"


@receiver(document_text_ready, dispatch_uid="knowledge.index_document")
def index_document(sender, document, **kwargs) -> None:
    indexing.index_source(
        SOURCE_TYPE,
        document.pk,
        document.knowledge_payload(),
        requested_by=getattr(document, "created_by", None),
    )


@receiver(document_removed, dispatch_uid="knowledge.purge_document")
def purge_document(sender, document_id, **kwargs) -> None:
    indexing.remove_source(SOURCE_TYPE, document_id)


def load_document(source_id: str) -> dict | None:
    """The current payload of a document, for re-indexing after consent comes back."""
    from apps.documents.models import Document

    document = Document.objects.filter(pk=int(source_id)).first() if source_id.isdigit() else None
    if document is None or not document.has_text:
        return None
    return document.knowledge_payload()
