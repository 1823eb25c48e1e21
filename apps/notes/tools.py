"""Agent tools of Notizen (family and module `notizen`: install-gated, but part of the minimal
module set). Thin on purpose: parse arguments, call the services, shape the output. Live UI
actions come from the mutation events the services record (notizen.folder/note/page.updated);
the dispatcher attaches them to the result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from apps.notes import attachments, services
from apps.notes.models import FOLDER_NAME_MAX, NOTE_NAME_MAX, PAGE_HTML_MAX, PAGE_TITLE_MAX
from apps.notes.records import folder_record, note_record, page_record
from apps.tools.args import Args
from apps.tools.context import ToolContext
from apps.tools.registry import tool
from apps.tools.results import page_output

FAMILY = "notizen"
VisibilityArg = Literal["shared", "private"]


class NoArgs(Args):
    pass


class AudioAttachment(Args):
    id: str = Field(min_length=1, max_length=attachments.ID_MAX)
    title: str = Field(min_length=1, max_length=attachments.TITLE_MAX)
    transcript: str | None = Field(default=None, max_length=attachments.TRANSCRIPT_MAX)
    mime_type: str | None = Field(default=None, max_length=100, description="e.g. audio/mpeg")
    file_size: int | None = Field(default=None, ge=0, description="Bytes.")
    duration_ms: int | None = Field(default=None, ge=0)
    created_at: str | None = Field(default=None, description="ISO 8601 with offset.")


class AssetItem(Args):
    id: str = Field(min_length=1, max_length=attachments.ID_MAX)
    kind: Literal["image", "file", "link", "drawing"] | None = None
    title: str | None = Field(default=None, max_length=attachments.TITLE_MAX)
    url: str | None = Field(default=None, max_length=attachments.URL_MAX, description="https://… or /path")
    mime_type: str | None = Field(default=None, max_length=100)
    file_size: int | None = Field(default=None, ge=0)
    width: int | None = Field(default=None, ge=0)
    height: int | None = Field(default=None, ge=0)
    created_at: str | None = None


def _dump(items: list[Args] | None) -> list[dict] | None:
    return None if items is None else [i.model_dump() for i in items]


@tool(
    name="notizen_list_folders",
    family=FAMILY,
    read_only=True,
    description="List the note folders you can see (a tree: parent_id links a folder to its parent), "
    "with the number of notes in each.",
)
def list_folders(ctx: ToolContext, args: NoArgs) -> dict:
    return {"folders": [folder_record(f) for f in services.list_folders(ctx.principal)]}


class CreateFolderArgs(Args):
    name: str = Field(min_length=1, max_length=FOLDER_NAME_MAX)
    parent_id: int | None = Field(default=None, description="Parent folder; default: top level.")
    visibility: VisibilityArg | None = Field(
        default=None, description="Default: the parent's visibility, else shared with the office."
    )


@tool(
    name="notizen_create_folder",
    family=FAMILY,
    read_only=False,
    description="Create a note folder.",
)
def create_folder(ctx: ToolContext, args: CreateFolderArgs) -> dict:
    folder = services.create_folder(ctx.principal, **args.model_dump())
    return {"folder": folder_record(folder)}


class ListNotesArgs(Args):
    folder_id: int | None = Field(default=None, description="Only notes in this folder.")
    query: str | None = Field(
        default=None, max_length=200, description="Words in the note name or its pages."
    )
    limit: int = Field(default=50, ge=1, le=services.MAX_PAGE)
    offset: int = Field(default=0, ge=0)


@tool(
    name="notizen_list_notes",
    family=FAMILY,
    read_only=True,
    description="List notes (most recently changed first), optionally in one folder or matching words; "
    "returns the total for pagination. Use notizen_get_note for the pages' content.",
)
def list_notes(ctx: ToolContext, args: ListNotesArgs) -> dict:
    notes, total = services.list_notes(ctx.principal, **args.model_dump())
    return page_output("notes", [note_record(n) for n in notes], total, limit=args.limit, offset=args.offset)


class NoteIdArgs(Args):
    note_id: int


@tool(
    name="notizen_get_note",
    family=FAMILY,
    read_only=True,
    description="Load one note with all its pages (title, HTML, plain text, assets, audio attachments).",
)
def get_note(ctx: ToolContext, args: NoteIdArgs) -> dict:
    note = services.get_note(ctx.principal, args.note_id)
    return {"note": note_record(note), "pages": [page_record(p) for p in services.note_pages(note)]}


class CreateNoteArgs(Args):
    name: str = Field(min_length=1, max_length=NOTE_NAME_MAX)
    folder_id: int | None = Field(default=None, description="Folder; default: top level.")
    visibility: VisibilityArg | None = Field(
        default=None, description="Default: the folder's visibility, else private to you."
    )
    page_title: str | None = Field(
        default=None, max_length=PAGE_TITLE_MAX, description="Title of the first page."
    )
    html: str | None = Field(default=None, max_length=PAGE_HTML_MAX, description="First page as HTML.")
    text: str | None = Field(default=None, max_length=PAGE_HTML_MAX, description="First page as plain text.")


@tool(
    name="notizen_create_note",
    family=FAMILY,
    read_only=False,
    description="Create a note with its first page (send html or text for the page's content).",
)
def create_note(ctx: ToolContext, args: CreateNoteArgs) -> dict:
    data = args.model_dump()
    data["page_title"] = data["page_title"] or ""
    note, page = services.create_note(ctx.principal, **data)
    return {"note": note_record(note), "page": page_record(page)}


class UpdateNoteArgs(Args):
    note_id: int
    name: str | None = Field(default=None, min_length=1, max_length=NOTE_NAME_MAX)
    folder_id: int | None = Field(default=None, description="Move into this folder.")
    visibility: VisibilityArg | None = None
    clear_fields: list[Literal["folder_id"]] = Field(
        default_factory=list, description='["folder_id"] moves the note to the top level.'
    )
    expected_version: int | None = Field(
        default=None, description="Refuse the change if the note's version differs."
    )


@tool(
    name="notizen_update_note",
    family=FAMILY,
    read_only=False,
    description="Rename a note, move it to another folder or change who sees it; "
    "fields you leave out stay as they are.",
)
def update_note(ctx: ToolContext, args: UpdateNoteArgs) -> dict:
    changes = {
        k: v for k, v in args.model_dump(include={"name", "folder_id", "visibility"}).items() if v is not None
    }
    if "folder_id" in args.clear_fields:
        changes["folder_id"] = None
    note = services.update_note(ctx.principal, args.note_id, changes, expected_version=args.expected_version)
    return {"note": note_record(note)}


class PageContentArgs(Args):
    title: str | None = Field(default=None, max_length=PAGE_TITLE_MAX)
    html: str | None = Field(
        default=None,
        max_length=PAGE_HTML_MAX,
        description="Rich text (p, h1-h3, b, i, u, lists, links, tables, inline font styles); "
        "scripts and event handlers are removed.",
    )
    text: str | None = Field(
        default=None, max_length=PAGE_HTML_MAX, description="Plain text instead of html."
    )
    font_family: str | None = Field(default=None, max_length=60, description="Page font, e.g. Georgia.")
    font_size: int | None = Field(default=None, ge=6, le=96, description="Page font size in points.")
    asset_items: list[AssetItem] | None = Field(default=None, description="Replaces the page's assets.")
    audio_attachments: list[AudioAttachment] | None = Field(
        default=None, description="Replaces the page's audio attachments."
    )


class CreatePageArgs(PageContentArgs):
    note_id: int
    position: int | None = Field(default=None, ge=0, description="0 = first page; default: last.")


@tool(
    name="notizen_create_page",
    family=FAMILY,
    read_only=False,
    description="Add a page to a note.",
)
def create_page(ctx: ToolContext, args: CreatePageArgs) -> dict:
    data = args.model_dump(exclude={"note_id", "asset_items", "audio_attachments"})
    data["title"] = data["title"] or ""
    page = services.create_page(
        ctx.principal,
        args.note_id,
        **data,
        asset_items=_dump(args.asset_items),
        audio_attachments=_dump(args.audio_attachments),
    )
    return {"page": page_record(page)}


class UpdatePageArgs(PageContentArgs):
    page_id: int
    clear_fields: list[Literal["font_family", "font_size"]] = Field(
        default_factory=list, description="Fields to reset to the default."
    )
    expected_version: int | None = Field(
        default=None, description="Refuse the change if the page's version differs."
    )


@tool(
    name="notizen_update_page",
    family=FAMILY,
    read_only=False,
    description="Change a page: title, content (html or text replaces it), font formatting, "
    "asset_items or audio_attachments (each list replaces the stored one). Fields you leave out stay.",
)
def update_page(ctx: ToolContext, args: UpdatePageArgs) -> dict:
    changes = {
        k: v
        for k, v in args.model_dump(include={"title", "html", "text", "font_family", "font_size"}).items()
        if v is not None
    }
    if args.asset_items is not None:
        changes["asset_items"] = _dump(args.asset_items)
    if args.audio_attachments is not None:
        changes["audio_attachments"] = _dump(args.audio_attachments)
    for name in args.clear_fields:
        changes[name] = None
    page = services.update_page(ctx.principal, args.page_id, changes, expected_version=args.expected_version)
    return {"page": page_record(page)}
