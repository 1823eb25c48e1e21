"""Agent tools of Notizen (family and module `notizen`: install-gated, but part of the minimal
module set).

Thin on purpose: the arguments are the operations' input models (`contracts.py`), the handler
calls the service and answers with the records. Live UI actions come from the mutation events
the services record (notizen.folder/note/page.updated); the dispatcher attaches them to the result.
"""

from __future__ import annotations

from apps.core.contracts import Input, page
from apps.notes import contracts as c
from apps.notes import services
from apps.notes.records import folder_record, note_record, page_record
from apps.tools.context import ToolContext
from apps.tools.registry import tool

FAMILY = "notizen"


@tool(
    name="notizen_list_folders",
    family=FAMILY,
    read_only=True,
    description="List the note folders you can see (a tree: parent_id links a folder to its parent), "
    "with the number of notes in each.",
)
def list_folders(ctx: ToolContext, args: Input) -> dict:
    return {"folders": [folder_record(f) for f in services.list_folders(ctx.principal)]}


@tool(
    name="notizen_create_folder",
    family=FAMILY,
    read_only=False,
    description="Create a note folder.",
)
def create_folder(ctx: ToolContext, args: c.NoteFolderCreate) -> dict:
    return {"folder": folder_record(services.create_folder(ctx.principal, **args.model_dump(mode="json")))}


@tool(
    name="notizen_list_notes",
    family=FAMILY,
    read_only=True,
    description="List notes (most recently changed first), optionally in one folder or matching words; "
    "returns the total for pagination. Use notizen_get_note for the pages' content.",
)
def list_notes(ctx: ToolContext, args: c.NoteFilter) -> dict:
    notes, total = services.list_notes(ctx.principal, **args.model_dump())
    return page("notes", [note_record(n) for n in notes], total, limit=args.limit, offset=args.offset)


@tool(
    name="notizen_get_note",
    family=FAMILY,
    read_only=True,
    description="Load one note with all its pages (title, HTML, plain text, assets, audio attachments).",
)
def get_note(ctx: ToolContext, args: c.NoteId) -> dict:
    note = services.get_note(ctx.principal, args.note_id)
    return {"note": note_record(note), "pages": [page_record(p) for p in services.note_pages(note)]}


@tool(
    name="notizen_create_note",
    family=FAMILY,
    read_only=False,
    description="Create a note with its first page (send html or text for the page's content).",
)
def create_note(ctx: ToolContext, args: c.NoteCreate) -> dict:
    note, first = services.create_note(ctx.principal, **args.service_kwargs())
    return {"note": note_record(note), "page": page_record(first)}


@tool(
    name="notizen_update_note",
    family=FAMILY,
    read_only=False,
    description="Rename a note, move it to another folder or change who sees it; "
    "fields you leave out stay as they are.",
)
def update_note(ctx: ToolContext, args: c.NoteUpdateById) -> dict:
    changes = args.changes(explicit_null_clears=False)
    note = services.update_note(ctx.principal, args.note_id, changes, expected_version=args.expected_version)
    return {"note": note_record(note)}


@tool(
    name="notizen_create_page",
    family=FAMILY,
    read_only=False,
    description="Add a page to a note.",
)
def create_page(ctx: ToolContext, args: c.NotePageCreateInNote) -> dict:
    return {"page": page_record(services.create_page(ctx.principal, args.note_id, **args.service_kwargs()))}


@tool(
    name="notizen_update_page",
    family=FAMILY,
    read_only=False,
    description="Change a page: title, content (html or text replaces it), font formatting, "
    "asset_items or audio_attachments (each list replaces the stored one). Fields you leave out stay.",
)
def update_page(ctx: ToolContext, args: c.NotePageUpdateById) -> dict:
    changes = args.changes(explicit_null_clears=False)
    updated = services.update_page(
        ctx.principal, args.page_id, changes, expected_version=args.expected_version
    )
    return {"page": page_record(updated)}
