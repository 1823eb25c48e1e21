"""The typed contract of the Notizen operations: what callers send (input models, shared by the
tools and the REST API) and what every surface answers with (output models; the builders in
`records.py` produce exactly these shapes, checked at the API boundary and in tests).

Page attachments (`asset_items`, `audio_attachments`) are checked by the services on every
surface, so the REST API answers the same field errors (`audio_attachments[0].id`) as the page
editor; the tools additionally declare the item shape, so the model sees it in its schema.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StringConstraints

from apps.accounts.contracts import AsPerson, AsServiceName
from apps.clients.contracts import AsCase
from apps.core.contracts import (
    Input,
    MomentText,
    NullIsUnchanged,
    Output,
    PageInput,
    Position,
    legacy_alias,
    paged,
    query_field,
    safe_url,
    wrapped,
)
from apps.core.outputs import RowOutput
from apps.notes import attachments
from apps.notes.models import FOLDER_NAME_MAX, NOTE_NAME_MAX, PAGE_HTML_MAX, PAGE_TITLE_MAX


class NoteVisibility(StrEnum):
    """Who sees a folder or note (its own OpenAPI component: other apps share the choices)."""

    SHARED = "shared"
    PRIVATE = "private"


# Rich text and plain text keep their whitespace (indentation, blank lines) as sent.
Content = Annotated[str, StringConstraints(strip_whitespace=False, max_length=PAGE_HTML_MAX)]


# --- output -----------------------------------------------------------------------------------
class _Counted(RowOutput):
    """A list's count (`note_count`, `page_count`) is in the record only where the row was
    annotated with it (lists), as the records always were."""

    COUNT: ClassVar[str]

    @classmethod
    def record(cls, row: Any) -> dict[str, Any]:
        record = super().record(row)
        if not hasattr(row, cls.COUNT):
            record.pop(cls.COUNT)
        return record


class NoteFolderOut(_Counted):
    COUNT = "note_count"

    id: int
    name: str
    parent_id: int | None
    visibility: NoteVisibility
    owner_id: int | None
    sort_order: int
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime
    note_count: int | None = Field(default=None, description="Notes you see in it (folder lists only).")


class NoteOut(_Counted):
    COUNT = "page_count"

    id: int
    name: str
    folder_id: int | None
    folder_name: str | None
    visibility: NoteVisibility
    owner: AsPerson | None
    created_by_service: AsServiceName | None = Field(description="The service principal that created it.")
    case_id: int | None
    case: AsCase | None
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime
    url: str
    page_count: int | None = Field(default=None, description="Number of pages (note lists only).")


class NoteAssetOut(Output):
    id: str
    kind: Literal["image", "file", "link", "drawing"]
    title: str
    url: str | None
    mime_type: str | None
    file_size: int | None
    width: int | None
    height: int | None
    created_at: str | None


class NoteAudioOut(Output):
    id: str
    title: str
    transcript: str | None
    mime_type: str | None
    file_size: int | None
    duration_ms: int | None
    created_at: str | None


class NotePageOut(Output):
    id: int
    note_id: int
    title: str
    ordinal: int
    html: str = Field(description="Sanitized rich text.")
    text: str = Field(description="Plain text of html (search, agents).")
    font_family: str
    font_size: int | None
    asset_items: list[NoteAssetOut]
    audio_attachments: list[NoteAudioOut]
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime


class NotePageEventOut(NotePageOut):
    """A page in a live event: a page too big for an event travels without its content
    (`content_omitted`), and open editors fetch it."""

    html: str | None
    text: str | None
    asset_items: list[NoteAssetOut] | None
    audio_attachments: list[NoteAudioOut] | None
    content_omitted: bool = False


class NoteFolderList(Output):
    folders: list[NoteFolderOut]


class NoteWithPages(Output):
    note: NoteOut
    pages: list[NotePageOut]


class NoteWithFirstPage(Output):
    note: NoteOut
    page: NotePageOut


class NotePageList(Output):
    pages: list[NotePageOut]


NoteListPage = paged(NoteOut, "notes", name="NoteListPage")
NoteFolderResult = wrapped(NoteFolderOut, "folder")
NoteResult = wrapped(NoteOut, "note")
NotePageResult = wrapped(NotePageOut, "page")


# --- input: folders ---------------------------------------------------------------------------
class NoteFolderCreate(Input):
    name: str = Field(min_length=1, max_length=FOLDER_NAME_MAX)
    parent_id: int | None = Field(default=None, description="Parent folder; default: top level.")
    visibility: NoteVisibility | None = Field(
        default=None, description="Default: the parent's visibility, else shared with the office."
    )


class NoteFolderUpdate(Input):
    """A partial change: fields left out stay; `parent_id: null` moves the folder to the top."""

    name: str | None = Field(default=None, min_length=1, max_length=FOLDER_NAME_MAX)
    parent_id: int | None = None
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse the change if the folder's version differs."
    )

    def changes(self) -> dict[str, Any]:
        return self.model_dump(include=self.model_fields_set - {"expected_version"})


# --- input: notes -----------------------------------------------------------------------------
class NoteFilter(PageInput):
    folder_id: int | None = Field(
        default=None,
        validation_alias=legacy_alias("folder_id", "folder"),
        description="Only notes in this folder.",
    )
    case_id: int | None = Field(default=None, description="Only notes of this case (Akte).")
    query: str | None = query_field("Words in the note name or its pages.")


class NotePageChoice(Input):
    """The Notizen page's `?page_id=`: which page of the open note the editor shows."""

    page_id: int | None = None


class NoteId(Input):
    note_id: int = Field(description="The note's id.")


class NoteCreate(Input):
    name: str = Field(min_length=1, max_length=NOTE_NAME_MAX)
    folder_id: int | None = Field(default=None, description="Folder; default: top level.")
    visibility: NoteVisibility | None = Field(
        default=None, description="Default: the folder's visibility, else private to you."
    )
    case_id: int | None = Field(
        default=None, description="The case (Akte) the note is about (id from cases_list)."
    )
    page_title: str | None = Field(
        default=None, max_length=PAGE_TITLE_MAX, description="Title of the first page."
    )
    html: Content | None = Field(default=None, description="First page as HTML.")
    text: Content | None = Field(default=None, description="First page as plain text.")


class NoteUpdate(Input):
    """A partial change. Fields left out stay as they are; `clear_fields` empties fields (a tool
    sends every field, null meaning "unchanged"); on the REST surface an explicit null clears."""

    name: str | None = Field(default=None, min_length=1, max_length=NOTE_NAME_MAX)
    folder_id: int | None = Field(default=None, description="Move into this folder.")
    visibility: NoteVisibility | None = None
    case_id: int | None = Field(default=None, description="Link the note to this case (Akte).")
    clear_fields: list[Literal["folder_id", "case_id"]] = Field(
        default_factory=list,
        description='["folder_id"] moves the note to the top level, ["case_id"] unlinks its case.',
    )
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse the change if the note's version differs."
    )

    def changes(self) -> dict[str, Any]:
        """The fields sent (an explicit null included: it empties the field), and every field of
        `clear_fields` as None."""
        sent = self.model_fields_set - {"clear_fields", "expected_version", "note_id"}
        return self.model_dump(mode="json", include=sent) | dict.fromkeys(self.clear_fields)


class NoteUpdateById(NullIsUnchanged, NoteUpdate):
    note_id: int


# --- input: pages -----------------------------------------------------------------------------
class NoteAssetIn(Input):
    id: str = Field(min_length=1, max_length=attachments.ID_MAX)
    kind: Literal["image", "file", "link", "drawing"] | None = None
    title: str | None = Field(default=None, max_length=attachments.TITLE_MAX)
    url: safe_url(attachments.URL_MAX) | None = Field(default=None, description="https://… or /path")
    mime_type: str | None = Field(default=None, max_length=100)
    file_size: int | None = Field(default=None, ge=0)
    width: int | None = Field(default=None, ge=0)
    height: int | None = Field(default=None, ge=0)
    created_at: MomentText | None = None


class NoteAudioIn(Input):
    id: str = Field(min_length=1, max_length=attachments.ID_MAX)
    title: str = Field(min_length=1, max_length=attachments.TITLE_MAX)
    transcript: str | None = Field(default=None, max_length=attachments.TRANSCRIPT_MAX)
    mime_type: str | None = Field(default=None, max_length=100, description="e.g. audio/mpeg")
    file_size: int | None = Field(default=None, ge=0, description="Bytes.")
    duration_ms: int | None = Field(default=None, ge=0)
    created_at: MomentText | None = Field(default=None, description="ISO 8601 with offset.")


ASSET_ITEMS = "Replaces the page's assets: id, kind (image, file, link, drawing), title, url, …"
AUDIO_ATTACHMENTS = "Replaces the page's audio attachments: id, title, transcript, mime_type, …"


class NotePageContent(Input):
    title: str | None = Field(default=None, max_length=PAGE_TITLE_MAX)
    html: Content | None = Field(
        default=None,
        description="Rich text (p, h1-h3, b, i, u, lists, links, tables, inline font styles); "
        "scripts and event handlers are removed.",
    )
    text: Content | None = Field(default=None, description="Plain text instead of html.")
    font_family: str | None = Field(default=None, max_length=60, description="Page font, e.g. Georgia.")
    font_size: int | None = Field(default=None, description="Page font size in points (6 to 96).")
    asset_items: list[dict[str, Any]] | None = Field(default=None, description=ASSET_ITEMS)
    audio_attachments: list[dict[str, Any]] | None = Field(default=None, description=AUDIO_ATTACHMENTS)


class NotePageCreate(NotePageContent):
    position: Position | None = Field(default=None, description="0 = first page; default: last.")

    def content(self) -> dict[str, Any]:
        """The page's values (attachments as plain dicts, a tool's typed items included)."""
        return self.model_dump(mode="json", include=set(NotePageContent.model_fields))


class NotePageUpdate(NotePageContent):
    """A partial change: fields left out stay as they are. `html` or `text` replace the content;
    each attachment list replaces the stored one."""

    clear_fields: list[Literal["font_family", "font_size"]] = Field(
        default_factory=list, description="Fields to reset to the default."
    )
    expected_version: int | None = Field(
        default=None, ge=1, description="Refuse the change if the page's version differs."
    )

    def changes(self) -> dict[str, Any]:
        """The fields sent (an explicit null included: it empties the field), and every field of
        `clear_fields` as None."""
        sent = self.model_fields_set & set(NotePageContent.model_fields)
        return self.model_dump(mode="json", include=sent) | dict.fromkeys(self.clear_fields)


class _TypedPageContent(Input):
    """What the tools declare beyond the REST shape: bounded font sizes and typed attachments."""

    font_size: int | None = Field(default=None, ge=6, le=96, description="Page font size in points.")
    asset_items: list[NoteAssetIn] | None = Field(default=None, description="Replaces the page's assets.")
    audio_attachments: list[NoteAudioIn] | None = Field(
        default=None, description="Replaces the page's audio attachments."
    )


class NotePageCreateInNote(_TypedPageContent, NotePageCreate):
    note_id: int


class NotePageUpdateById(NullIsUnchanged, _TypedPageContent, NotePageUpdate):
    page_id: int
