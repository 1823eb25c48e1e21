"""Live events of the Notizen domain (the seed's topics), audience-scoped by the record's viewers
(see `apps.mutations.audience`): shared records are one all-users row, private ones reach their
owner only, and people who lose sight of a record get a bare removal."""

from __future__ import annotations

from apps.mutations.audience import LiveList, Viewers, announced_remove, announced_upsert, send
from apps.notes.contracts import NoteFolderOut, NoteOut
from apps.notes.models import Note, NoteFolder, NotePage
from apps.notes.records import page_record
from apps.notes.visibility import viewers

FOLDER_TOPIC = "notizen.folder.updated"
NOTE_TOPIC = "notizen.note.updated"
PAGE_TOPIC = "notizen.page.updated"
FOLDERS = "note-folders"
NOTES = "notes"
PAGES = "note-pages"
LIVE_NOTES = LiveList(NOTES, NOTE_TOPIC, "notizen.note.removed")


def folder_changed(folder: NoteFolder, announce_key: str) -> None:
    send(viewers(folder), FOLDER_TOPIC, announced_upsert(FOLDERS, NoteFolderOut.record(folder), announce_key))


def folder_deleted(folder_id: int, folder_viewers: Viewers) -> None:
    send(folder_viewers, FOLDER_TOPIC, announced_remove(FOLDERS, folder_id, "notizen.folder.deleted"))


def note_changed(note: Note, announce_key: str, old_viewers: Viewers | None = None) -> None:
    """A note was created or changed; when it became private the others get only a removal."""
    LIVE_NOTES.changed(NoteOut.record(note), announce_key, viewers(note), old_viewers)


def note_deleted(note_id: int, note_viewers: Viewers) -> None:
    send(note_viewers, NOTE_TOPIC, announced_remove(NOTES, note_id, "notizen.note.deleted"))


def page_changed(page: NotePage, note: Note, announce_key: str) -> None:
    send(viewers(note), PAGE_TOPIC, announced_upsert(PAGES, page_record(page, for_event=True), announce_key))


def page_deleted(page_id: int, note: Note) -> None:
    send(viewers(note), PAGE_TOPIC, announced_remove(PAGES, page_id, "notizen.page.deleted"))
