"""Agent tools of the documents domain (family `documents`, never install-gated).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the records. Live UI actions (and the reload of open document
views) come from the mutation events the services record; the dispatcher attaches them.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.core.contracts import Input
from apps.core.surfaces.api import listed
from apps.documents import contracts as c
from apps.documents import folders, services, sharing
from apps.documents.errors import FolderProtected
from apps.documents.records import detailed_record, share_record
from apps.tools import confirmation
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, staged_tool, tool


@tool(name="documents_list", output=c.DocumentPage, surfaces=WITH_LIVE, read_only=True)
def list_documents(ctx: ToolContext, args: c.DocumentFilter) -> dict:
    """List or search the documents you can see (newest first) with filters and pagination; returns
    metadata and extraction state, not the text (use documents_get)."""
    found = services.list_documents(ctx.principal, args)
    return listed("documents", c.DocumentOut.record, found, args)


@tool(
    name="documents_get",
    output=c.DocumentWithText,
    surfaces=WITH_LIVE,
    read_only=True,
    reads_foreign_content=True,
)
def get_document(ctx: ToolContext, args: c.DocumentRead) -> dict:
    """Load one document: metadata, extraction state and its readable text (extracted from PDF, Word, text,
    Markdown, HTML or e-mail), shortened to max_chars."""
    document = services.get_document(ctx.principal, args.document_id)
    text = document.extracted_text
    return {
        "document": detailed_record(document),
        "text": text[: args.max_chars],
        "text_truncated": len(text) > args.max_chars,
        "text_length": len(text),
        "sections": [{"title": s.get("title", ""), "page": s.get("page")} for s in document.sections[:500]],
    }


@tool(name="documents_list_folders", output=c.FolderList, surfaces=WITH_LIVE, read_only=True)
def list_folders(ctx: ToolContext, args: Input) -> dict:
    """List the document folders you can see as a tree (path of ids, depth), including your private
    “Persönlich” folder. Documents without a folder are in the root “Dokumente”."""
    return {"folders": [c.FolderOut.record(f) for f in folders.list_folders(ctx.principal)]}


@tool(name="documents_create", output=c.DocumentResult, read_only=False)
def create_document(ctx: ToolContext, args: c.DocumentCreate) -> dict:
    """Create a new Markdown document in the root “Dokumente” or in a folder, optionally linked to clients
    and a case (Akte)."""
    document = services.create_markdown(ctx.principal, args)
    return {"document": c.DocumentOut.record(document)}


@tool(name="documents_create_folder", output=c.FolderResult, read_only=False)
def create_folder(ctx: ToolContext, args: c.FolderCreate) -> dict:
    """Create a document folder. Top-level folders are shared with the office; a folder inside your
    “Persönlich” folder stays private. With client_id it is a client folder: documents in it are linked to
    that client."""
    return {"folder": c.FolderOut.record(folders.create_folder(ctx.principal, args))}


@tool(name="documents_update_folder", output=c.FolderResult, read_only=False)
def update_folder(ctx: ToolContext, args: c.FolderUpdateById) -> dict:
    """Rename or move a document folder, or make it a client folder (client_id) or an ordinary one
    (remove_client)."""
    return {"folder": c.FolderOut.record(folders.update_folder(ctx.principal, args.folder_id, args))}


def _document_named(args: c.DocumentId, ctx: ToolContext, action: str) -> dict:
    """Looked up with the right the call needs: nobody is asked to approve what cannot run."""
    document = services.get_document(ctx.principal, args.document_id, action=action, with_text=False)
    folder = document.folder.name if document.folder_id else _("Documents")
    return {"title": document.title, "folder": folder}


def _delete_preview(args: c.DocumentId, ctx: ToolContext) -> str:
    return _("Deletes the document “%(title)s” in the folder “%(folder)s” for good.") % _document_named(
        args, ctx, "delete"
    )


def _share_preview(args: c.DocumentId, ctx: ToolContext) -> str:
    return _("Creates a public link to the document “%(title)s” (folder “%(folder)s”).") % _document_named(
        args, ctx, "change"
    )


def _folder_of_document(args: c.DocumentId, ctx: ToolContext) -> tuple[str, int] | None:
    document = services.get_document(ctx.principal, args.document_id, with_text=False)
    return ("folder", document.folder_id) if document.folder_id else None


def _folder_preview(args: c.FolderDeleteById, ctx: ToolContext) -> str:
    folder = folders.get_folder(ctx.principal, args.folder_id, action="delete")
    if folder.is_home:
        raise FolderProtected(_("Your “Persönlich” folder cannot be deleted."))
    if args.recursive:
        return _("Deletes the folder “%(name)s” with all its documents and subfolders.") % {
            "name": folder.name
        }
    return _("Deletes the empty folder “%(name)s”.") % {"name": folder.name}


@tool(
    name="documents_delete_folder",
    output=c.Deleted,
    read_only=False,
    # Deleting a folder with its contents is a mass deletion: its own row in the rights table.
    operations=("delete", "mass_delete"),
    operation_key=lambda args: "mass_delete" if args.recursive else "delete",
    # A recursive delete is confirmed by the person's approval-token phrase in the chat (the
    # handler asks for it on the first call): it is not staged as well.
    default={"delete": "stage", "mass_delete": "run"},
    preview=_folder_preview,
    scope=lambda args, ctx: ("folder", args.folder_id),
)
def delete_folder(ctx: ToolContext, args: c.FolderDeleteById) -> dict:
    """Delete a document folder. Deleting it recursively (with its subfolders and documents) cannot
    be undone: the first call changes nothing and answers approval_token_required with a phrase the
    person must send in the chat; then call again with the same arguments and approval_token."""
    if args.recursive:
        folder, documents, subfolders = folders.folder_contents(ctx.principal, args.folder_id)
        summary = _("This deletes the folder “%(name)s” with %(docs)d documents and %(folders)d subfolders.")
        confirmation.require_token(
            ctx,
            "documents_delete_folder",
            args,
            action=_("delete folder"),
            summary=summary % {"name": folder.name, "docs": documents, "folders": subfolders},
        )
    return {"deleted": folders.delete_folder(ctx.principal, args.folder_id, recursive=args.recursive)}


@tool(name="documents_update", output=c.DocumentResult, read_only=False)
def update_document(ctx: ToolContext, args: c.DocumentUpdateById) -> dict:
    """Update a document's metadata: title, folder, related clients, its case (Akte), extracted tax fields.
    Fields you leave out stay as they are."""
    return {"document": c.DocumentOut.record(services.update_document(ctx.principal, args.document_id, args))}


@tool(name="documents_move", output=c.DocumentResult, read_only=False)
def move_document(ctx: ToolContext, args: c.DocumentMove) -> dict:
    """Move a document into another folder."""
    document = services.move_document(ctx.principal, args.document_id, folder_id=args.folder_id)
    return {"document": c.DocumentOut.record(document)}


@staged_tool(
    name="documents_delete",
    operation="delete",
    output=c.Deleted,
    preview=_delete_preview,
    scope=_folder_of_document,
)
def delete_document(ctx: ToolContext, args: c.DocumentId) -> dict:
    """Delete a document and its file for good."""
    return {"deleted": services.delete_document(ctx.principal, args.document_id)}


# A public link makes the document readable outside the office: an external side effect.
@staged_tool(
    name="documents_create_share",
    operation="share",
    output=c.ShareResult,
    preview=_share_preview,
    scope=_folder_of_document,
)
def create_share(ctx: ToolContext, args: c.ShareCreateFor) -> dict:
    """Create the public read-only share link of a document, or return the active one."""
    share, token, created = sharing.create_share(ctx.principal, args.document_id, args)
    return {"share": share_record(share, token), "created": created}


@tool(name="documents_revoke_share", output=c.Revoked, read_only=False)
def revoke_share(ctx: ToolContext, args: c.DocumentId) -> dict:
    """Revoke the active public share link of a document."""
    return {"revoked": sharing.revoke_share(ctx.principal, args.document_id)}
