"""The typed contract of the documents operations: what callers send (input models, shared by the
tools and the REST API) and what every surface answers with (output models; the builders in
`records.py` produce exactly these shapes, checked at the API boundary and in tests).

Uploads are multipart, not JSON: `DocumentUpload` validates the form's metadata fields, the view
reads the file itself, and `DocumentUploadForm` documents the whole form in OpenAPI.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any, Literal

from pydantic import AliasChoices, Field, field_validator

from apps.accounts.contracts import AsPerson, AsServiceName
from apps.clients.contracts import AsCase, AsClient, ClientRef
from apps.clients.records import client_ref
from apps.core.contracts import (
    Input,
    NullIsUnchanged,
    Output,
    PageInput,
    legacy_alias,
    paged,
    query_field,
    wrapped,
)
from apps.core.outputs import RowOutput
from apps.documents.models import FOLDER_NAME_MAX, MARKDOWN_MAX, MAX_EXPIRY_DAYS, TITLE_MAX
from apps.tools.confirmation import TokenArgs

TEXT_MAX_CHARS = 200_000  # the longest text documents_get hands the model
CLIENTS_MAX = 50

ExtractionStatus = Literal["pending", "running", "done", "unsupported_format", "extraction_failed", "empty"]


# Named enums (own OpenAPI components) where a field name is common across apps ("kind", "status"):
# inline choices would be named after the field and collide with other apps' choices.
class FolderKind(StrEnum):
    SHARED = "shared"
    PERSONAL = "personal"


class ExtractionState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    UNSUPPORTED_FORMAT = "unsupported_format"
    EXTRACTION_FAILED = "extraction_failed"
    EMPTY = "empty"


# --- output -----------------------------------------------------------------------------------
class FolderOut(RowOutput):
    id: int
    name: str
    parent_id: int | None
    kind: FolderKind
    owner_id: int | None = Field(description="The owner of a personal folder; null for shared ones.")
    is_home: bool = Field(description="The person's own “Persönlich” folder.")
    path: str = Field(
        description="Ids from the top, e.g. /3/17/.", validation_alias=AliasChoices("tree_path", "path")
    )
    depth: int
    client: AsClient | None = Field(
        description="A client folder's Mandant: documents in it or below it are linked to it."
    )
    version: int


class FolderRef(RowOutput):
    id: int
    name: str
    kind: FolderKind


class ExtractionOut(RowOutput):
    status: ExtractionState
    status_label: str
    error: str | None = Field(description="Why no text was extracted (a stable reason code).")
    message: str | None = Field(description="The reason in words.")
    page_count: int | None
    extracted_at: dt.datetime | None


class IndexingOut(RowOutput):
    """The knowledge store's state of the document (detail answers only)."""

    status: str
    label: str
    chunks: int
    indexed_at: dt.datetime | None
    error: str


class DocumentOut(RowOutput):
    id: int
    title: str
    filename: str = Field(validation_alias=AliasChoices("original_filename", "filename"))
    mime_type: str
    size: int
    content_hash: str
    folder: FolderRef | None = Field(description="Null: the root “Dokumente”.")
    clients: list[ClientRef]
    case_id: int | None = Field(description="The case (Akte) the document belongs to.")
    case: AsCase | None
    extraction: ExtractionOut
    indexing: IndexingOut | None = Field(
        description="Set on single-document answers; null in lists.",
        validation_alias=AliasChoices("index_state", "indexing"),
    )
    tax_fields: dict[str, Any]
    shared_publicly: bool
    version: int
    created_by: AsPerson | None
    created_by_service: AsServiceName | None
    created_at: dt.datetime
    updated_at: dt.datetime
    url: str
    download_url: str

    @field_validator("clients", mode="before")
    @classmethod
    def _clients(cls, value: Any) -> Any:
        return [client_ref(c) for c in value.all()] if hasattr(value, "all") else value


class ShareOut(Output):
    document_id: int
    token: str
    url: str = Field(description="The public page of the link (no login).")
    expires_at: dt.datetime | None
    created_at: dt.datetime


class SectionOut(Output):
    title: str
    page: int | None


class DocumentWithText(Output):
    document: DocumentOut
    text: str
    text_truncated: bool
    text_length: int
    sections: list[SectionOut]


class DocumentDetail(Output):
    document: DocumentOut
    share: ShareOut | None = Field(description="The active public link, if any.")


class ShareResult(Output):
    share: ShareOut
    created: bool = Field(description="False when the active link was handed back.")


class FolderList(Output):
    folders: list[FolderOut]


class Deleted(Output):
    deleted: int = Field(description="The id of what was deleted.")


class Revoked(Output):
    revoked: int = Field(description="The id of the document whose link was revoked.")


DocumentPage = paged(DocumentOut, "documents")
DocumentResult = wrapped(DocumentOut, "document")
FolderResult = wrapped(FolderOut, "folder")


# --- input ------------------------------------------------------------------------------------
ClientIds = list[int]


class DocumentFilter(PageInput):
    query: str | None = query_field("Words in title, file name or text.")
    folder_id: int | None = Field(
        default=None,
        validation_alias=legacy_alias("folder_id", "folder"),
        description="Only documents directly in this folder.",
    )
    client_id: int | None = Field(
        default=None,
        validation_alias=legacy_alias("client_id", "client"),
        description="Only documents related to this client (Mandant).",
    )
    case_id: int | None = Field(default=None, description="Only documents of this case (Akte).")
    extraction_status: ExtractionStatus | None = Field(
        default=None, description="Only documents in this extraction state."
    )


class DocumentPageFilter(DocumentFilter):
    """The Dokumente page's filters: `?case=` too (the case page's "all documents")."""

    case_id: int | None = Field(default=None, validation_alias=legacy_alias("case_id", "case"))


class FolderMark(Input):
    """The folder settings' "always neutralize" switch."""

    neutralize_always: bool = False


class ProposalDecision(Input):
    """Accept or dismiss the workflow's proposed client link."""

    decision: Literal["accept", "dismiss"] = "dismiss"


class FileView(Input):
    """`?inline=1`: show a shared file in the browser instead of downloading it."""

    inline: bool = False


class DocumentId(Input):
    document_id: int = Field(description="The document's id.")


class DocumentRead(DocumentId):
    max_chars: int = Field(default=50_000, ge=100, le=TEXT_MAX_CHARS, description="Longest text returned.")


_CASE = Field(default=None, description="The case (Akte) concerned; its client is linked too.")


class DocumentCreate(Input):
    """A new Markdown document (written by a person or the copilot)."""

    title: str = Field(min_length=1, max_length=TITLE_MAX)
    content: str = Field(default="", max_length=MARKDOWN_MAX, description="The Markdown text.")
    folder_id: int | None = Field(default=None, description="Target folder; default: the root “Dokumente”.")
    client_ids: ClientIds = Field(
        default_factory=list, max_length=CLIENTS_MAX, description="Related clients (Mandanten)."
    )
    case_id: int | None = _CASE


class DocumentUpload(Input):
    """The metadata fields of a multipart upload (the file itself is the form field `file`)."""

    title: str | None = Field(
        default=None, max_length=TITLE_MAX, description="Default: the file name without extension."
    )
    folder_id: int | None = Field(default=None, description="Target folder; default: the root “Dokumente”.")
    client_ids: ClientIds = Field(
        default_factory=list, max_length=CLIENTS_MAX, description="Related clients (Mandanten)."
    )
    case_id: int | None = _CASE


class DocumentUploadForm(DocumentUpload):
    """The whole multipart form, as OpenAPI documents it."""

    file: bytes = Field(
        json_schema_extra={"format": "binary"},
        description="The file; text extraction starts in the background.",
    )


class DocumentUpdate(Input):
    """A partial change of the metadata. Fields left out stay as they are; on the REST surface an
    explicit null empties (`folder_id`: back to the root, `client_ids`/`tax_fields`/`case_id`: none)."""

    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    folder_id: int | None = Field(default=None, description="Move into this folder (null: the root).")
    client_ids: ClientIds | None = Field(
        default=None, max_length=CLIENTS_MAX, description="Related clients (Mandanten); replaces the list."
    )
    case_id: int | None = _CASE
    tax_fields: dict[str, Any] | None = Field(
        default=None, description="The extracted tax fields; replaces them all."
    )
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse the change if the document's version differs."
    )

    def changes(self) -> dict[str, Any]:
        return self.model_dump(include=self.model_fields_set - {"expected_version"})


class TaxField(Input):
    name: str = Field(min_length=1, max_length=80, description="e.g. Steuerjahr, Steuernummer, Festsetzung.")
    value: str | int | float | None = Field(description="The value; null removes the field.")


class DocumentUpdateById(DocumentUpdate):
    """The tool's form: null means "unchanged", and tax fields are patched one by one."""

    document_id: int
    tax_fields: list[TaxField] | None = Field(  # type: ignore[assignment]
        default=None,
        max_length=100,
        description="Extracted tax fields to set; fields not named stay, a null value removes one.",
    )
    remove_case: bool = Field(default=False, description="Take the document out of its case.")

    def changes(self) -> dict[str, Any]:
        values = self.model_dump(exclude={"document_id", "expected_version", "tax_fields", "remove_case"})
        changes = {k: v for k, v in values.items() if v is not None}
        if self.remove_case:
            changes["case_id"] = None
        if self.tax_fields is not None:
            changes["tax_fields_patch"] = {field.name: field.value for field in self.tax_fields}
        return changes


class DocumentMove(DocumentId):
    folder_id: int | None = Field(default=None, description="Target folder; null: the root “Dokumente”.")


class ShareCreate(Input):
    expires_in_days: int | None = Field(
        default=None, ge=1, le=MAX_EXPIRY_DAYS, description="Expiry; default: none."
    )


class ShareCreateFor(ShareCreate):
    document_id: int


_FOLDER_CLIENT = Field(
    default=None, description="Make it a client folder: its documents are linked to this client (Mandant)."
)


class FolderCreate(Input):
    name: str = Field(min_length=1, max_length=FOLDER_NAME_MAX)
    parent_id: int | None = Field(default=None, description="Parent folder; default: top level (shared).")
    client_id: int | None = _FOLDER_CLIENT


class FolderUpdate(Input):
    """Rename and/or move. On the REST surface an explicit `parent_id: null` moves to the top."""

    name: str | None = Field(default=None, min_length=1, max_length=FOLDER_NAME_MAX, description="New name.")
    parent_id: int | None = Field(default=None, description="Move into this folder.")
    move_to_root: bool = Field(default=False, description="Move to the top level (shared).")
    client_id: int | None = _FOLDER_CLIENT
    remove_client: bool = Field(
        default=False, description="No longer a client folder (its documents keep their links)."
    )
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse if the folder's version differs."
    )

    def moves_to_root(self) -> bool:
        """`move_to_root`, or an explicit `parent_id: null` (REST)."""
        return self.move_to_root or ("parent_id" in self.model_fields_set and self.parent_id is None)

    def removes_client(self) -> bool:
        """`remove_client`, or an explicit `client_id: null` (REST)."""
        return self.remove_client or ("client_id" in self.model_fields_set and self.client_id is None)


class FolderUpdateById(NullIsUnchanged, FolderUpdate):
    # The tool's form: nulls mean "unchanged" (only move_to_root / remove_client move or unlink).
    folder_id: int


class FolderDelete(Input):
    recursive: bool = Field(
        default=False,
        description="Also delete its subfolders and documents; without it a non-empty folder is refused.",
    )


class FolderDeleteById(FolderDelete, TokenArgs):
    folder_id: int
