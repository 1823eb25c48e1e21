"""What a document row's change tells the others, shared by the services and the folder
operations (`folders.py`), which the services use in turn: the knowledge store hears of new text
and of removed rows (signals), the viewers get their live event, files go after the commit."""

from __future__ import annotations

from django.db import transaction

from apps.documents import events, storage
from apps.documents.models import Document
from apps.documents.signals import document_removed, document_text_ready
from apps.documents.visibility import document_viewers


def announce_text(document: Document) -> None:
    """Tell the knowledge store (inside this transaction) that the indexable content changed."""
    if document.extraction_status == Document.Extraction.DONE:
        document_text_ready.send(sender=Document, document=document)


def delete_document_rows(documents: list[Document]) -> None:
    """Delete rows, tell the knowledge store before each row goes, remove files after commit."""
    for document in documents:
        viewers = document_viewers(document)
        document_removed.send(sender=Document, document_id=document.pk)
        name, pk = document.file.name, document.pk
        document.delete()
        transaction.on_commit(lambda name=name: storage.remove(name))
        events.document_deleted(pk, viewers)
