"""The header search's notes section (extension point `dashboard.search_providers`, declared in
`apps.notes.apps`): the viewer's visible notes whose name or pages match, via `list_notes`."""

from __future__ import annotations

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.core.db.search import SearchHit, SearchSection
from apps.core.inputs import build
from apps.notes import services
from apps.notes.contracts import NoteFilter
from apps.notes.records import note_url


def provider(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    notes, total = services.list_notes(principal, build(NoteFilter, query=words, limit=limit))
    hits = [
        SearchHit(title=note.name, url=note_url(note.pk), detail=note.folder.name if note.folder else "")
        for note in notes
    ]
    more = f"{reverse('notes:index')}?{urlencode({'q': words})}"
    return SearchSection("notes", _("Notes"), hits, total=total, more_url=more, order=40)
