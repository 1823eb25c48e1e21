"""Notizen as a `context_search` source: the pages the principal may see (their private notes and
the office's shared ones), matched by German full text and read back with
`context_get("note:<page id>")`."""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core.db.search import WORD, search
from apps.core.records import text_window
from apps.knowledge.context import GET_MAX_CHARS, ContextHit, ContextQuery, ContextSource, snippet
from apps.knowledge.errors import KnowledgeNotFound
from apps.knowledge.visibility import PERSONAL, SHARED
from apps.notes.models import NotePage, Visibility
from apps.notes.visibility import visible_pages


def _pages(principal: Principal, scope: str):
    qs = visible_pages(principal).select_related("note")
    if scope == PERSONAL:
        return qs.filter(note__visibility=Visibility.PRIVATE)
    if scope == SHARED:
        return qs.filter(note__visibility=Visibility.SHARED)
    return qs


def _scope_label(page: NotePage) -> str:
    return "personal" if page.note.visibility == Visibility.PRIVATE else "instance"


def _search(q: ContextQuery) -> list[ContextHit]:
    if not WORD.search(q.text):
        return []  # core search would match everything for a query without words
    ranked = search(_pages(q.principal, q.scope), q.text).order_by("-updated_at")[: q.limit]
    return [
        ContextHit(
            ref=f"note:{page.pk}",
            source="note",
            title=" › ".join(part for part in (page.note.name, page.title) if part),
            snippet=snippet(page.text),
            meta={"note_id": page.note_id, "scope": _scope_label(page)},
        )
        for page in ranked
    ]


def _get(principal: Principal, source_id: str, options: dict) -> dict:
    page = _pages(principal, "all").filter(pk=int(source_id) if source_id.isdigit() else 0).first()
    if page is None:
        raise KnowledgeNotFound(_("There is nothing with the id %(id)s.") % {"id": f"note:{source_id}"})
    return {
        "id": f"note:{page.pk}",
        "source": "note",
        "title": page.title,
        "note": {"id": page.note_id, "name": page.note.name},
        "scope": _scope_label(page),
        "updated_at": page.updated_at.isoformat(),
        **text_window(page.text, options, GET_MAX_CHARS),
    }


# Declared for `knowledge.sources` in apps.py.
source = ContextSource("note", search=_search, get=_get, description="Notizen pages")
