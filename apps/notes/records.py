"""The one wire shape of folders, notes and pages: tools, REST API, pages and live events. Fast
dict builders; `apps.notes.contracts` declares every key they emit (NoteFolderOut, NoteOut,
NotePageOut, and NotePageEventOut for the event variant)."""

from __future__ import annotations

import json

from django.db.models import QuerySet
from django.urls import reverse

from apps.accounts.contracts import person_ref
from apps.clients.records import case_ref
from apps.core.records import attrs, stamps
from apps.notes.models import Note, NoteFolder, NotePage

# Live events must stay small (see apps.mutations.services.MAX_UI_ACTIONS_BYTES): a bigger page
# travels without its content and open editors fetch it.
EVENT_RECORD_MAX = 40_000


def with_relations(qs: QuerySet[Note]) -> QuerySet[Note]:
    """Everything `note_record` reads, fetched in the same query (no N+1 in lists)."""
    return qs.select_related("folder", "owner", "created_by_service", "case")


def note_url(note_id: int) -> str:
    return reverse("notes:note", args=[note_id])


def folder_record(folder: NoteFolder) -> dict:
    record = {
        "id": folder.pk,
        **attrs(folder, "name", "parent_id", "visibility", "owner_id", "sort_order"),
        **stamps(folder),
    }
    if hasattr(folder, "note_count"):
        record["note_count"] = folder.note_count
    return record


def note_record(note: Note) -> dict:
    record = {
        "id": note.pk,
        **attrs(note, "name", "folder_id"),
        "folder_name": note.folder.name if note.folder_id else None,
        "visibility": note.visibility,
        "owner": person_ref(note.owner),
        "created_by_service": note.created_by_service.name if note.created_by_service_id else None,
        "case_id": note.case_id,
        "case": case_ref(note.case) if note.case_id else None,
        **stamps(note),
        "url": note_url(note.pk),
    }
    if hasattr(note, "page_count"):
        record["page_count"] = note.page_count
    return record


def page_summary(page: NotePage) -> dict:
    return {"id": page.pk, "note_id": page.note_id, "title": page.title, "ordinal": page.ordinal}


def page_record(page: NotePage, *, for_event: bool = False) -> dict:
    record = {
        **page_summary(page),
        **attrs(page, "html", "text", "font_family", "font_size", "asset_items", "audio_attachments"),
        **stamps(page),
    }
    if for_event and len(json.dumps(record)) > EVENT_RECORD_MAX:
        record.update(html=None, text=None, asset_items=None, audio_attachments=None, content_omitted=True)
    return record
