"""The case page's "link a note" picker (`clients.case_links`): the viewer's visible notes without
a case (a note names no client), newest first, linked through `update_note`."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.clients.case_links import CaseLinker, newest
from apps.clients.models import Case
from apps.core.inputs import build
from apps.notes import services
from apps.notes.contracts import NoteUpdate
from apps.notes.visibility import visible_notes


def candidates(principal: Principal, case: Case) -> list[tuple[int, str]]:
    return newest(visible_notes(principal).filter(case__isnull=True), "name")


def link(principal: Principal, case: Case, note_id: int) -> None:
    services.update_note(principal, note_id, build(NoteUpdate, case_id=case.pk))


LINKER = CaseLinker("notes", _("Notes"), candidates, link, order=40)
