"""Reading one note as the principal may see it: shared by the note services and the page
services (`page_services.py`), which the note services use in turn."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core.db.lookup import get_by_id
from apps.notes.errors import NoteNotFound
from apps.notes.models import Note
from apps.notes.records import with_relations
from apps.notes.visibility import visible_notes


def get_note(principal: Principal, note_id: Any, *, for_update: bool = False) -> Note:
    qs = with_relations(visible_notes(principal))
    if for_update:
        qs = qs.select_for_update(of=("self",))
    return get_by_id(qs, note_id, NoteNotFound, _("There is no note with id %(id)s."))
