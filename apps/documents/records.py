"""The one wire shape of a document and a folder: tools, REST API, pages and live events.

Fast dict builders; every key they emit is declared by the output models in `contracts.py`
(`DocumentOut`, `FolderOut`, `ShareOut`), which the REST layer validates each answer against."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.db.models.functions import Now
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apps.clients.models import Client
from apps.core.records import iso
from apps.documents.models import Document, ShareLink
from apps.knowledge.services import index_states

_URLS: dict[str, str] = {}
_PLACEHOLDER = "987654321"


def document_url(name: str, pk: int) -> str:
    # reverse() once per process and fill in the id: lists serialize many records.
    if name not in _URLS:
        _URLS[name] = reverse(name, args=[int(_PLACEHOLDER)])
    return _URLS[name].replace(_PLACEHOLDER, str(pk))


def active_share_q() -> Q:
    return Q(revoked_at__isnull=True) & (Q(expires_at__isnull=True) | Q(expires_at__gt=Now()))


def with_relations(qs: QuerySet[Document], *, with_text: bool = False) -> QuerySet[Document]:
    """Everything `DocumentOut.record` reads, in a fixed number of queries (no N+1 in lists)."""
    qs = qs.select_related("folder", "case", "created_by", "created_by_service").prefetch_related(
        Prefetch("clients", queryset=Client.objects.only("id", "name", "client_number"))
    )
    qs = qs.annotate(
        has_active_share=Exists(ShareLink.objects.filter(active_share_q(), document=OuterRef("pk")))
    )
    deferred = ["search"] if with_text else ["search", "extracted_text", "sections"]
    return qs.defer(*deferred)


# Why an extraction did not produce text, in words people (and the model) understand.
REASONS = {
    "encrypted": _("The PDF is password-protected; its text cannot be read."),
    "corrupt": _("The file is damaged or not what its name says."),
    "too_large": _("The file is too large to extract (too many pages or too much text)."),
    "timeout": _("Extracting the text took too long and was stopped."),
    "file_missing": _("The stored file is missing."),
    "unsupported_format": _("Text cannot be extracted from this file type."),
    "no_text": _("The file contains no readable text (perhaps a scan without text layer)."),
    "internal_error": _("The extraction failed unexpectedly."),
}


def extraction_record(document: Document) -> dict:
    reason = document.extraction_error
    return {
        "status": document.extraction_status,
        "status_label": str(document.get_extraction_status_display()),
        "error": reason or None,
        "message": str(REASONS.get(reason, "")) or None if reason else None,
        "page_count": document.page_count,
        "extracted_at": iso(document.extracted_at),
    }


def share_record(share: ShareLink, token: str) -> dict:
    return {
        "document_id": share.document_id,
        "token": token,
        "url": reverse("documents:public-share", args=[token]),
        "expires_at": iso(share.expires_at),
        "created_at": share.created_at.isoformat(),
    }


def detailed_record(document) -> dict:
    """The document's record plus the knowledge store's indexing state (status, chunks, indexed_at)."""
    from apps.documents.contracts import DocumentOut

    document.index_state = index_states("document", [document.pk]).get(str(document.pk))
    return DocumentOut.record(document)
