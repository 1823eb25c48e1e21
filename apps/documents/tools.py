"""Agent tools of the documents domain (family `documents`, core: never install-gated).

Thin on purpose: parse arguments, call the service, shape the output. Live UI actions (and the
reload of open document views) come from the mutation events the services record.
"""

from __future__ import annotations

from pydantic import Field

from apps.documents import folders, services, sharing
from apps.documents.models import FOLDER_NAME_MAX, TITLE_MAX
from apps.documents.records import detailed_record, document_record, folder_record, share_record
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.tools.results import page_output

FAMILY = "documents"
TEXT_MAX_CHARS = 200_000


class ListDocumentsArgs(Args):
    query: str | None = Field(default=None, max_length=200, description="Words in title, file name or text.")
    folder_id: int | None = Field(default=None, description="Only documents directly in this folder.")
    client_id: int | None = Field(
        default=None, description="Only documents related to this client (Mandant)."
    )
    limit: int = Field(default=50, ge=1, le=services.MAX_PAGE, description="Page size.")
    offset: int = Field(default=0, ge=0, description="Skip this many documents (pagination).")


@tool(
    name="documents_list",
    family=FAMILY,
    read_only=True,
    description="List or search the documents you can see (newest first) with filters and pagination; "
    "returns metadata and extraction state, not the text (use documents_get).",
)
def list_documents(ctx: ToolContext, args: ListDocumentsArgs) -> dict:
    found, total = services.list_documents(ctx.principal, **args.model_dump())
    return page_output(
        "documents", [document_record(d) for d in found], total, limit=args.limit, offset=args.offset
    )


class GetDocumentArgs(Args):
    document_id: int = Field(description="The document's id.")
    max_chars: int = Field(default=50_000, ge=100, le=TEXT_MAX_CHARS, description="Longest text returned.")


@tool(
    name="documents_get",
    family=FAMILY,
    read_only=True,
    reads_foreign_content=True,
    description="Load one document: metadata, extraction state and its readable text (extracted from "
    "PDF, Word, text, Markdown, HTML or e-mail), shortened to max_chars.",
)
def get_document(ctx: ToolContext, args: GetDocumentArgs) -> dict:
    document = services.get_document(ctx.principal, args.document_id)
    text = document.extracted_text
    return {
        "document": detailed_record(document),
        "text": text[: args.max_chars],
        "text_truncated": len(text) > args.max_chars,
        "text_length": len(text),
        "sections": [{"title": s.get("title", ""), "page": s.get("page")} for s in document.sections[:500]],
    }


class NoArgs(Args):
    pass


@tool(
    name="documents_list_folders",
    family=FAMILY,
    read_only=True,
    description="List the document folders you can see as a tree (path of ids, depth), including your "
    "private “Persönlich” folder. Documents without a folder are in the root “Dokumente”.",
)
def list_folders(ctx: ToolContext, args: NoArgs) -> dict:
    return {"folders": [folder_record(f) for f in folders.list_folders(ctx.principal)]}


class CreateDocumentArgs(Args):
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    content: str = Field(default="", max_length=services.MARKDOWN_MAX, description="The Markdown text.")
    folder_id: int | None = Field(default=None, description="Target folder; default: the root “Dokumente”.")
    client_ids: list[int] = Field(
        default_factory=list, max_length=50, description="Related clients (Mandanten)."
    )


@tool(
    name="documents_create",
    family=FAMILY,
    read_only=False,
    description="Create a new Markdown document in the root “Dokumente” or in a folder.",
)
def create_document(ctx: ToolContext, args: CreateDocumentArgs) -> dict:
    document = services.create_markdown(ctx.principal, **args.model_dump())
    return {"document": document_record(document)}


class CreateFolderArgs(Args):
    name: str = Field(min_length=1, max_length=FOLDER_NAME_MAX)
    parent_id: int | None = Field(default=None, description="Parent folder; default: top level (shared).")


@tool(
    name="documents_create_folder",
    family=FAMILY,
    read_only=False,
    description="Create a document folder. Top-level folders are shared with the office; a folder inside "
    "your “Persönlich” folder stays private.",
)
def create_folder(ctx: ToolContext, args: CreateFolderArgs) -> dict:
    return {
        "folder": folder_record(
            folders.create_folder(ctx.principal, name=args.name, parent_id=args.parent_id)
        )
    }


class UpdateFolderArgs(Args):
    folder_id: int
    name: str | None = Field(default=None, min_length=1, max_length=FOLDER_NAME_MAX, description="New name.")
    parent_id: int | None = Field(default=None, description="Move into this folder.")
    move_to_root: bool = Field(default=False, description="Move to the top level (shared).")
    expected_version: int | None = Field(default=None, description="Refuse if the folder's version differs.")


@tool(
    name="documents_update_folder",
    family=FAMILY,
    read_only=False,
    description="Rename or move a document folder.",
)
def update_folder(ctx: ToolContext, args: UpdateFolderArgs) -> dict:
    folder = folders.update_folder(ctx.principal, **args.model_dump())
    return {"folder": folder_record(folder)}


class DeleteFolderArgs(Args):
    folder_id: int
    recursive: bool = Field(
        default=False,
        description="Also delete its subfolders and documents; without it a non-empty folder is refused.",
    )


@tool(name="documents_delete_folder", family=FAMILY, read_only=False, description="Delete a document folder.")
def delete_folder(ctx: ToolContext, args: DeleteFolderArgs) -> dict:
    return {"deleted": folders.delete_folder(ctx.principal, args.folder_id, recursive=args.recursive)}


class TaxField(Args):
    name: str = Field(min_length=1, max_length=80, description="e.g. Steuerjahr, Steuernummer, Festsetzung.")
    value: str | int | float | None = Field(description="The value; null removes the field.")


class UpdateDocumentArgs(Args):
    document_id: int
    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    client_ids: list[int] | None = Field(
        default=None, max_length=50, description="Related clients (Mandanten); replaces the list."
    )
    tax_fields: list[TaxField] | None = Field(
        default=None,
        max_length=100,
        description="Extracted tax fields to set; fields not named stay, a null value removes one.",
    )
    expected_version: int | None = Field(
        default=None, description="Refuse if the document's version differs."
    )


@tool(
    name="documents_update",
    family=FAMILY,
    read_only=False,
    description="Update a document's metadata: title, related clients, extracted tax fields. Fields you "
    "leave out stay as they are.",
)
def update_document(ctx: ToolContext, args: UpdateDocumentArgs) -> dict:
    changes = {
        k: v
        for k, v in args.model_dump(exclude={"document_id", "expected_version", "tax_fields"}).items()
        if v is not None
    }
    if args.tax_fields is not None:
        changes["tax_fields_patch"] = {field.name: field.value for field in args.tax_fields}
    document = services.update_document(
        ctx.principal, args.document_id, changes, expected_version=args.expected_version
    )
    return {"document": document_record(document)}


class MoveDocumentArgs(Args):
    document_id: int
    folder_id: int | None = Field(default=None, description="Target folder; null: the root “Dokumente”.")


@tool(
    name="documents_move", family=FAMILY, read_only=False, description="Move a document into another folder."
)
def move_document(ctx: ToolContext, args: MoveDocumentArgs) -> dict:
    return {
        "document": document_record(
            services.move_document(ctx.principal, args.document_id, folder_id=args.folder_id)
        )
    }


class DocumentIdArgs(Args):
    document_id: int = Field(description="The document's id.")


@tool(
    name="documents_delete",
    family=FAMILY,
    read_only=False,
    description="Delete a document and its file for good.",
)
def delete_document(ctx: ToolContext, args: DocumentIdArgs) -> dict:
    return {"deleted": services.delete_document(ctx.principal, args.document_id)}


class CreateShareArgs(Args):
    document_id: int
    expires_in_days: int | None = Field(
        default=None, ge=1, le=sharing.MAX_EXPIRY_DAYS, description="Expiry; default: none."
    )


@tool(
    name="documents_create_share",
    family=FAMILY,
    read_only=False,
    description="Create the public read-only share link of a document, or return the active one.",
)
def create_share(ctx: ToolContext, args: CreateShareArgs) -> dict:
    share, token, created = sharing.create_share(
        ctx.principal, args.document_id, expires_in_days=args.expires_in_days
    )
    return {"share": share_record(share, token), "created": created}


@tool(
    name="documents_revoke_share",
    family=FAMILY,
    read_only=False,
    description="Revoke the active public share link of a document.",
)
def revoke_share(ctx: ToolContext, args: DocumentIdArgs) -> dict:
    return {"revoked": sharing.revoke_share(ctx.principal, args.document_id)}
