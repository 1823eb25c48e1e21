"""Agent tools of Notizen (family and module `notizen`: install-gated, but part of the minimal
module set).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the records. Live UI actions come from the mutation events
the services record (notizen.folder/note/page.updated); the dispatcher attaches them to the result.
"""

from __future__ import annotations

from apps.core.contracts import Input
from apps.core.surfaces.api import listed
from apps.notes import contracts as c
from apps.notes import services
from apps.notes.contracts import NoteFolderOut, NoteOut
from apps.notes.records import page_record
from apps.tools.context import ToolContext
from apps.tools.registry import WITH_LIVE, tool


@tool(name="notizen_list_folders", output=c.NoteFolderList, surfaces=WITH_LIVE, read_only=True)
def list_folders(ctx: ToolContext, args: Input) -> dict:
    """List the note folders you can see (a tree: parent_id links a folder to its parent), with the number
    of notes in each."""
    return {"folders": [NoteFolderOut.record(f) for f in services.list_folders(ctx.principal)]}


@tool(name="notizen_create_folder", output=c.NoteFolderResult, read_only=False)
def create_folder(ctx: ToolContext, args: c.NoteFolderCreate) -> dict:
    """Create a note folder."""
    return {"folder": NoteFolderOut.record(services.create_folder(ctx.principal, args))}


@tool(
    name="notizen_list_notes",
    output=c.NoteListPage,
    surfaces=WITH_LIVE,
    reads_foreign_content=True,
    read_only=True,
)
def list_notes(ctx: ToolContext, args: c.NoteFilter) -> dict:
    """List notes (most recently changed first), optionally in one folder or matching words; returns the
    total for pagination. Use notizen_get_note for the pages' content."""
    return listed("notes", NoteOut.record, services.list_notes(ctx.principal, args), args)


@tool(
    name="notizen_get_note",
    output=c.NoteWithPages,
    surfaces=WITH_LIVE,
    reads_foreign_content=True,
    read_only=True,
)
def get_note(ctx: ToolContext, args: c.NoteId) -> dict:
    """Load one note with all its pages (title, HTML, plain text, assets, audio attachments)."""
    note = services.get_note(ctx.principal, args.note_id)
    return {"note": NoteOut.record(note), "pages": [page_record(p) for p in services.note_pages(note)]}


@tool(name="notizen_create_note", output=c.NoteWithFirstPage, surfaces=WITH_LIVE, read_only=False)
def create_note(ctx: ToolContext, args: c.NoteCreate) -> dict:
    """Create a note with its first page (send html or text for the page's content)."""
    note, first = services.create_note(ctx.principal, args)
    return {"note": NoteOut.record(note), "page": page_record(first)}


@tool(name="notizen_update_note", output=c.NoteResult, read_only=False)
def update_note(ctx: ToolContext, args: c.NoteUpdateById) -> dict:
    """Rename a note, move it to another folder, link it to a case (Akte) or change who sees it; fields you
    leave out stay as they are."""
    return {"note": NoteOut.record(services.update_note(ctx.principal, args.note_id, args))}


@tool(name="notizen_create_page", output=c.NotePageResult, surfaces=WITH_LIVE, read_only=False)
def create_page(ctx: ToolContext, args: c.NotePageCreateInNote) -> dict:
    """Add a page to a note."""
    return {"page": page_record(services.create_page(ctx.principal, args.note_id, args))}


@tool(name="notizen_update_page", output=c.NotePageResult, read_only=False)
def update_page(ctx: ToolContext, args: c.NotePageUpdateById) -> dict:
    """Change a page: title, content (html or text replaces it), font formatting, asset_items or
    audio_attachments (each list replaces the stored one). Fields you leave out stay."""
    return {"page": page_record(services.update_page(ctx.principal, args.page_id, args))}
