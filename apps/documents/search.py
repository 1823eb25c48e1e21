"""The header search's documents section (extension point `dashboard.search_providers`, declared
in `apps.documents.apps`). The full results page ranks by the knowledge store's hybrid search
(meaning and words) and keeps only the documents the viewer may read (the index's scopes are
coarser than folder rights), then adds title/text matches not yet indexed. The as-you-type
drop-down (`quick`) skips embedding the query and uses the full-text match alone."""

from __future__ import annotations

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.core.search import SearchHit, SearchSection
from apps.documents import services
from apps.documents.contracts import DocumentFilter
from apps.documents.knowledge import SOURCE_TYPE
from apps.documents.models import Document
from apps.documents.visibility import visible_documents
from apps.knowledge.errors import EmbeddingError
from apps.knowledge.search import best_per_file, hybrid_search

SNIPPET = 140


def _ranked(principal: Principal, words: str, limit: int) -> list[tuple[Document, str]]:
    """Visible documents in hybrid-rank order, each with its best passage (two statements)."""
    try:
        hits = best_per_file(
            hybrid_search(principal, words, limit=limit * 3, source_types=[SOURCE_TYPE]), limit * 3
        )
    except EmbeddingError:  # the embedding model is unreachable: words alone still find titles
        return []
    passages = {int(h.source_id): h.text for h in hits if h.source_id.isdigit()}
    rows = visible_documents(principal).filter(pk__in=list(passages)).select_related("folder")
    by_id = {d.pk: d for d in rows.only("id", "title", "folder__name")}
    return [(by_id[i], passages[i]) for i in passages if i in by_id][:limit]


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1].rstrip() + "…"


def provider(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    ranked = [] if quick else _ranked(principal, words, limit)
    matched, total = services.list_documents(principal, build(DocumentFilter, query=words[:200], limit=limit))
    found = ranked + [(d, "") for d in matched]
    seen: set[int] = set()
    hits = []
    for document, passage in found:
        if document.pk in seen or len(hits) >= limit:
            continue
        seen.add(document.pk)
        folder = document.folder.name if document.folder else ""
        detail = " · ".join(x for x in (folder, _snippet(passage) if passage else "") if x)
        hits.append(
            SearchHit(
                title=document.title, url=reverse("documents:detail", args=[document.pk]), detail=detail
            )
        )
    more = f"{reverse('documents:index')}?{urlencode({'q': words})}"
    # With ranked passages the count of word matches is not the count of hits: leave it open.
    return SearchSection(
        "documents", _("Documents"), hits, total=None if ranked else total, more_url=more, order=30
    )
