"""The case page's "Notes" section (extension point `clients.case_sections`, declared in
`apps.notes.apps`): the notes linked to the case that the viewer may see (other people's private
notes stay out), newest first, and a "new note for this case" form. Three queries, whatever the
case holds."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients.case_page import Section
from apps.clients.models import Case
from apps.core.inputs import build
from apps.notes import services, sharing
from apps.notes.contracts import NoteFilter

LINKED_NOTES = 20  # the notes page is one click away


def section(principal: Principal, case: Case) -> Section:
    notes, total = services.list_notes(principal, build(NoteFilter, case_id=case.pk, limit=LINKED_NOTES))
    sharing.mark_shared_with(notes)
    return Section(
        "notes",
        "notes/_case_page.html",
        {"case_notes": notes, "case_note_total": total},
        order=60,
        live_topics=("notizen.note",),
        actions="notes/_case_page_new.html",
    )
