"""Live events of the documents domain, audience-scoped by the document's or folder's viewers
(see `apps.mutations.audience` for the rules shared with every domain)."""

from __future__ import annotations

from apps.documents.contracts import DocumentOut
from apps.documents.models import Document, Folder
from apps.documents.records import extraction_record
from apps.documents.visibility import document_viewers, folder_viewers
from apps.mutations import actions
from apps.mutations.audience import (
    EVERYONE,
    LiveList,
    Viewers,
    announced_remove,
    send,
)

LIST = "documents"
TOPIC = "documents.document.updated"
FOLDERS_TOPIC = "documents.folders"
REFRESH = "documents"
DOCUMENTS = LiveList(LIST, TOPIC, "documents.document.removed")


def _reload() -> dict:
    return actions.reload_topic(REFRESH)


def document_changed(document: Document, announce_key: str, old_viewers: Viewers | None = None) -> None:
    """A document was created or changed; people who lost sight of it get only a removal."""
    DOCUMENTS.changed(
        DocumentOut.record(document), announce_key, document_viewers(document), old_viewers, also=[_reload()]
    )


def documents_linked(documents: list[Document]) -> None:
    """Documents of a client folder's subtree got its client: one event per folder of them (the
    audience of its documents) with their new records, no notice per document."""
    by_folder: dict[int | None, list[Document]] = {}
    for document in documents:
        by_folder.setdefault(document.folder_id, []).append(document)
    for batch in by_folder.values():
        if folder_viewers(batch[0].folder) == EVERYONE:
            upserts = [actions.upsert(LIST, d.pk, DocumentOut.record(d)) for d in batch]
            send(EVERYONE, TOPIC, [*upserts, _reload()])
            continue
        for document in batch:  # private ones: each document's own audience (its grants)
            upsert = actions.upsert(LIST, document.pk, DocumentOut.record(document))
            send(document_viewers(document), TOPIC, [upsert, _reload()])


def document_deleted(document_id: int, viewers: Viewers) -> None:
    send(
        viewers,
        "documents.document.deleted",
        [*announced_remove(LIST, document_id, "documents.document.deleted"), _reload()],
    )


def extraction_progress(document: Document, progress: int | None = None) -> None:
    """Extraction state for open pages: a partial record (clients merge it into what they have)."""
    record = {"id": document.pk, "extraction": extraction_record(document) | {"progress": progress}}
    action = actions.upsert(LIST, document.pk, record)
    if document.extraction_status not in (Document.Extraction.PENDING, Document.Extraction.RUNNING):
        action["announce_key"] = f"documents.extraction.{document.extraction_status}"
    ui = [action]
    send(document_viewers(document), "documents.extraction.progress", ui)


def folders_changed(folder: Folder, announce_key: str, old_viewers: Viewers | None = None) -> None:
    reload = [actions.reload_topic(FOLDERS_TOPIC) | {"announce_key": announce_key}, _reload()]
    viewers = folder_viewers(folder)
    if old_viewers is not None and old_viewers != viewers:
        send(old_viewers, "documents.folders.changed", reload, refresh_topic=REFRESH)
    send(viewers, "documents.folders.changed", reload, refresh_topic=REFRESH)


def folder_deleted(viewers: Viewers, announce_key: str = "documents.folder.deleted") -> None:
    reload = [actions.reload_topic(FOLDERS_TOPIC) | {"announce_key": announce_key}, _reload()]
    send(viewers, "documents.folders.changed", reload, refresh_topic=REFRESH)


def workflow_changed(document: Document, workflow) -> None:
    """The workflow of a document moved on: open detail pages re-render its timeline."""
    record = {
        "id": document.pk,
        "workflow": {"status": workflow.status, "reason": workflow.reason or None, "runs": workflow.runs},
    }
    action = actions.upsert(LIST, document.pk, record)
    if workflow.status in ("done", "skipped", "failed"):
        action["announce_key"] = f"documents.workflow.{workflow.status}"
    send(document_viewers(document), "documents.workflow.updated", [action])
