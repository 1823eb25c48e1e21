"""The only place that changes documents. Tools, REST API, pages, admin and jobs call these
functions with a `Principal` and plain values; visibility, validation, audit, live events and the
knowledge-store signals are handled here once.

Invisible documents answer exactly like missing ones (`document_not_found`): ids cannot be probed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.clients import services as client_services
from apps.clients import visibility as client_visibility
from apps.clients.errors import CaseNotFound, ClientNotFound
from apps.clients.models import Case, Client
from apps.core import validation
from apps.core.db.lookup import get_by_id
from apps.core.db.narrowing import narrowed
from apps.core.db.paging import total_of
from apps.core.db.search import search
from apps.core.db.versioning import Versioned
from apps.core.errors import Forbidden
from apps.core.inputs import build
from apps.core.queue import enqueue
from apps.documents import events, folders, storage
from apps.documents.contracts import DocumentOut, DocumentUpdate, DocumentUpload
from apps.documents.errors import DocumentNotFound, EmptyFile, FileTooLarge
from apps.documents.folders import get_folder
from apps.documents.models import TITLE_MAX, Document, Folder
from apps.documents.records import with_relations
from apps.documents.rows import announce_text, delete_document_rows  # (admin and processing use them here)
from apps.documents.visibility import can_document, document_viewers, visible_documents

if TYPE_CHECKING:  # the contracts import the sharing module, which imports this one
    from apps.documents.contracts import DocumentCreate, DocumentFilter

MAX_PAGE = 200
EXTRACT_JOB = "apps.documents.jobs.extract_document"  # processing.run_extraction
TAX_FIELDS_MAX_BYTES = 32 * 1024


def _title(value: str) -> str:
    return validation.text(value, "title", max_length=TITLE_MAX, required=True)


def _clients(principal: Principal, client_ids: list[int] | None) -> list[Client]:
    """The visible clients named; an unknown or invisible id answers `client_not_found` (naming
    the field), so a link never reveals or reaches a client the caller cannot see."""
    ids = sorted(set(client_ids or ()))
    found = list(client_visibility.visible_clients(principal).filter(pk__in=ids))
    if len(found) != len(ids):
        missing = sorted(set(ids) - {c.pk for c in found})
        message = _("There is no client with id %(id)s.") % {"id": ", ".join(map(str, missing))}
        raise ClientNotFound(message, details={"field_errors": {"client_ids": message}})
    return found


def _case(principal: Principal, case_id: int | None) -> Case | None:
    if case_id is None:
        return None
    try:
        return client_services.get_case(principal, case_id)
    except CaseNotFound as exc:
        raise CaseNotFound(exc.message, details={"field_errors": {"case_id": exc.message}}) from None


def _linked_clients(explicit: list[Client], folder: Folder | None, case: Case | None) -> list[Client]:
    """What a document is linked to: the clients given, its client folder's and its case's client
    (an Akte's documents always concern its Mandant)."""
    found = {c.pk: c for c in explicit}
    for client in (folders.inherited_client(folder), case.client if case else None):
        if client is not None:
            found.setdefault(client.pk, client)
    return list(found.values())


def _tax_fields(value: object) -> dict:
    import json

    if not isinstance(value, dict):
        raise validation.invalid("tax_fields", _("must be an object"))
    if len(json.dumps(value, default=str)) > TAX_FIELDS_MAX_BYTES:
        raise validation.invalid("tax_fields", _("is too large"))
    return value


def _folder_for_write(principal: Principal, folder_id: int | None) -> Folder | None:
    if folder_id is None:
        return None
    return get_folder(principal, folder_id, action="change")


# --- reading ----------------------------------------------------------------------------------
def get_document(
    principal: Principal,
    document_id: int | str,
    *,
    action: str = "view",
    for_update: bool = False,
    with_text: bool = True,
) -> Document:
    qs = visible_documents(principal)
    if for_update:
        qs = qs.select_for_update(of=("self",))
    document = get_by_id(
        with_relations(qs, with_text=with_text),
        document_id,
        DocumentNotFound,
        _("There is no document with id %(id)s."),
    )
    if action != "view" and not can_document(principal, document, action):
        raise Forbidden(_("You may only read the document “%(title)s”.") % {"title": document.title})
    return document


def list_documents(principal: Principal, filters: DocumentFilter) -> tuple[list[Document], int]:
    qs: QuerySet[Document] = visible_documents(principal)
    if filters.folder_id is not None:
        qs = qs.filter(folder=get_folder(principal, filters.folder_id))
    qs = narrowed(qs, clients__id=filters.client_id, case_id=filters.case_id)
    qs = narrowed(qs, extraction_status=filters.extraction_status)
    if filters.query:
        qs = search(qs, filters.query)
    limit, offset = filters.limit, filters.offset
    page = list(with_relations(qs.order_by("-created_at", "-id"))[offset : offset + limit])
    return page, total_of(qs, page, offset=offset, limit=limit)


def case_choices(
    principal: Principal, client_ids: list[int], current_id: int | None
) -> list[tuple[int, str]]:
    """(id, "reference subject") of the open cases of the linked clients, and the current case
    whatever its state, for the page's case picker (one query)."""
    qs = client_visibility.visible_cases(principal)
    rows = qs.filter(Q(client_id__in=client_ids, status=Case.Status.OPEN) | Q(pk=current_id or 0))
    return [
        (pk, f"{reference} {subject}")
        for pk, reference, subject in rows.order_by("reference", "id").values_list(
            "id", "reference", "subject"
        )
    ]


# --- writing ----------------------------------------------------------------------------------
def _enqueue_extraction(document_id: int) -> None:
    """The extraction job, after commit; a deployment may route it to its own queue."""
    enqueue(EXTRACT_JOB, document_id, queue=getattr(settings, "CLAPILOT_DOCUMENTS_QUEUE", None))


@transaction.atomic
def upload_document(principal: Principal, data: DocumentUpload, *, content: File, filename: str) -> Document:
    """Store a file (the multipart part: `content` as sent as `filename`) with the validated
    metadata and queue its text extraction. Bad input is refused before anything is written. The
    document is linked to the clients given, its client folder's and its case's client."""
    name = storage.sanitize_filename(filename)
    size = getattr(content, "size", None)
    if size is None:
        content.seek(0, 2)
        size = content.tell()
        content.seek(0)
    if not size:
        raise EmptyFile(_("The file “%(name)s” is empty.") % {"name": name})
    limit = storage.max_upload_bytes()
    if size > limit:
        raise FileTooLarge(
            _("The file “%(name)s” is larger than %(mb)d MB.") % {"name": name, "mb": limit // (1024 * 1024)},
            details={"max_bytes": limit, "size": size},
        )
    folder = _folder_for_write(principal, data.folder_id)
    case = _case(principal, data.case_id)
    clients = _linked_clients(_clients(principal, data.client_ids), folder, case)
    title = data.title or _title(name.rsplit(".", 1)[0] if "." in name else name)
    stored, digest, real_size, mime = storage.store(content, name)
    try:
        document = Document.objects.create(
            title=title,
            original_filename=name,
            file=stored,
            content_hash=digest,
            mime_type=mime,
            size=real_size,
            folder=folder,
            case=case,
            created_by=principal.audit_actor,
            created_by_service=principal.service,
        )
        document.clients.set(clients)
    except Exception:
        storage.remove(stored)
        raise
    _enqueue_extraction(document.pk)
    document = get_document(principal, document.pk)
    events.document_changed(document, "documents.document.created")
    return document


@transaction.atomic
def create_markdown(principal: Principal, data: DocumentCreate) -> Document:
    """documents_create: a Markdown document written by a person or the copilot."""
    filename = storage.sanitize_filename(f"{data.title}.md")
    text = (data.content or f"# {data.title}\n").encode("utf-8")
    metadata = build(
        DocumentUpload,
        title=data.title,
        folder_id=data.folder_id,
        client_ids=data.client_ids,
        case_id=data.case_id,
    )
    return upload_document(principal, metadata, content=ContentFile(text, name=filename), filename=filename)


INDEXED_FIELDS = frozenset({"title", "client_ids", "folder_id", "case_id"})
DOCUMENT_VERSION = Versioned(
    "document", DocumentOut.record, gettext_lazy("The document was changed by someone else in the meantime.")
)


@transaction.atomic
def update_document(principal: Principal, document_id: int, data: DocumentUpdate) -> Document:
    """Partial update of the metadata (the fields sent, `DocumentUpdate.changes()`; the tool's
    `DocumentUpdateById` patches tax fields one by one); a stale `expected_version` is refused,
    never overwritten."""
    changes = data.changes()
    document = get_document(principal, document_id, action="change", for_update=True, with_text=True)
    DOCUMENT_VERSION.check(document, data.expected_version)
    old_viewers = document_viewers(document)
    if "title" in changes:
        if not changes["title"]:  # an explicit null: the contract checked every text
            raise validation.invalid("title", _("must not be empty"))
        document.title = changes["title"]
    if "tax_fields" in changes:
        document.tax_fields = _tax_fields(changes["tax_fields"] if changes["tax_fields"] is not None else {})
    if "tax_fields_patch" in changes:  # set some keys, remove those given as None, keep the rest
        patch = _tax_fields(changes["tax_fields_patch"])
        merged = {**document.tax_fields, **{k: v for k, v in patch.items() if v is not None}}
        document.tax_fields = _tax_fields({k: v for k, v in merged.items() if patch.get(k, "") is not None})
    if "folder_id" in changes:
        document.folder = _folder_for_write(principal, changes["folder_id"])
    if "case_id" in changes:
        document.case = _case(principal, changes["case_id"])
    if changes.keys() & {"client_ids", "folder_id", "case_id"}:
        explicit = (
            _clients(principal, changes["client_ids"])
            if "client_ids" in changes
            else list(document.clients.all())
        )
        # Moving into a client folder or naming a case adds its client; nothing is unlinked but
        # by a new client list (which cannot drop the case's client).
        folder = document.folder if "folder_id" in changes else None
        case = document.case if changes.keys() & {"case_id", "client_ids"} else None
        document.clients.set(_linked_clients(explicit, folder, case))
    document.version += 1
    document.save()
    document = get_document(principal, document.pk) if _still_visible(principal, document) else document
    if changes.keys() & INDEXED_FIELDS:  # title, consent path or scope changed for the knowledge store
        announce_text(document)
    events.document_changed(document, "documents.document.updated", old_viewers=old_viewers)
    return document


def _still_visible(principal: Principal, document: Document) -> bool:
    return visible_documents(principal).filter(pk=document.pk).exists()


def move_document(principal: Principal, document_id: int, *, folder_id: int | None) -> Document:
    """Into another folder (None: the root "Dokumente")."""
    return update_document(principal, document_id, build(DocumentUpdate, folder_id=folder_id))


@transaction.atomic
def delete_document(principal: Principal, document_id: int) -> int:
    document = get_document(principal, document_id, action="delete", for_update=True, with_text=False)
    pk = document.pk
    delete_document_rows([document])
    return pk


@transaction.atomic
def request_extraction(document_ids: list[int]) -> int:
    """Admin: extract again (after an upgrade of the extractors, or a worker that was down)."""
    ids = list(Document.objects.filter(pk__in=document_ids).values_list("id", flat=True))
    Document.objects.filter(pk__in=ids).update(
        extraction_status=Document.Extraction.PENDING, extraction_error="", extraction_message=""
    )
    for pk in ids:
        _enqueue_extraction(pk)
    return len(ids)
