"""The wire shape of note pages (tools, REST API, pages and live events; `apps.notes.contracts`
declares every key: NotePageOut, and NotePageEventOut for the event variant) and what a note
record reads. Folders and notes build their records themselves (NoteFolderOut, NoteOut)."""

from __future__ import annotations

import json

from django.db.models import QuerySet
from django.urls import reverse

from apps.core.records import attrs, stamps
from apps.notes.models import Note, NotePage

# Live events must stay small (see apps.mutations.services.MAX_UI_ACTIONS_BYTES): a bigger page
# travels without its content and open editors fetch it.
EVENT_RECORD_MAX = 40_000


def with_relations(qs: QuerySet[Note]) -> QuerySet[Note]:
    """Everything `NoteOut.record` reads, fetched in the same query (no N+1 in lists)."""
    return qs.select_related("folder", "owner", "created_by_service", "case")


def note_url(note_id: int) -> str:
    return reverse("notes:note", args=[note_id])


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
