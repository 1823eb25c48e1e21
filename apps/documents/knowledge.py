"""Documents in the knowledge store: their context source (`knowledge.sources`), the names of
their folder-id paths (`knowledge.path_labels`), and the receivers of `apps.documents.signals`
that index a document's text when it is ready and purge it synchronously when the document is
deleted. Both run inside the documents transaction, so the index never disagrees with a
committed document. Connected in `DocumentsConfig.ready()`."""

from __future__ import annotations

from django.dispatch import receiver

from apps.documents.models import Document, Folder
from apps.documents.signals import document_removed, document_text_ready
from apps.knowledge import indexing
from apps.knowledge.context import knowledge_source

SOURCE_TYPE = "document"


def load_document(source_id: str) -> dict | None:
    """The current payload of a document, for re-indexing after consent comes back."""
    document = Document.objects.filter(pk=int(source_id)).first() if source_id.isdigit() else None
    if document is None or not document.has_text:
        return None
    return document.knowledge_payload()


source = knowledge_source(
    SOURCE_TYPE, description="Office documents (uploaded and extracted).", load=load_document
)


def folder_labels(ids: set[int]) -> dict[int, str]:
    return dict(Folder.objects.filter(pk__in=ids).values_list("pk", "name"))


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
