"""The header search's documents section (extension point `dashboard.search_providers`, declared
in `apps.documents.apps`). The full results page ranks by the knowledge store's hybrid search
(meaning and words) and keeps only the documents the viewer may read (the index's scopes are
coarser than folder rights) in its own section "Similar documents", below the exact title/text
matches. The as-you-type drop-down (`quick`) skips embedding the query."""

from __future__ import annotations

import re

from django.db.models.functions import Left
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.core.db.search import WORD, SearchHit, SearchSection
from apps.core.inputs import build
from apps.documents import services
from apps.documents.contracts import DocumentFilter
from apps.documents.knowledge import SOURCE_TYPE
from apps.documents.models import Document
from apps.documents.visibility import visible_documents
from apps.knowledge.errors import EmbeddingError
from apps.knowledge.search import best_per_file, hybrid_search

SNIPPET = 140


GENERIC = re.compile(
    r"^(scan|dokument|document|datei|file|img|image|bild|unbenannt|untitled|neu|new|kopie|copy)?[\s_-]*\d*$",
    re.I,
)
TITLE_MAX = 90
HEAD = 4000  # characters of the text read for the shown title and the exact hit's passage


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
    rows = rows.only("id", "title", "original_filename", "folder__name").annotate(
        head=Left("extracted_text", 300)
    )
    by_id: dict[int, Document] = {d.pk: d for d in rows}
    return [(by_id[i], passages[i]) for i in passages if i in by_id][:limit]


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1].rstrip() + "…"


def shown_title(title: str, head: str) -> str:
    """A generic file name ("scan001.pdf", "Dokument.pdf") is shown as the text's first heading or
    line instead (display only: the document keeps its name)."""
    stem = title.rsplit(".", 1)[0] if "." in title else title
    if not GENERIC.match(stem.strip()):
        return title
    for line in (head or "").splitlines():
        line = line.strip().lstrip("#").strip()
        if len(line) >= 3:
            return line if len(line) <= TITLE_MAX else line[: TITLE_MAX - 1].rstrip() + "…"
    return title


def _hit(document: Document, passage: str, head: str) -> SearchHit:
    folder = document.folder.name if document.folder else ""
    detail = " · ".join(x for x in (folder, _snippet(passage) if passage else "") if x)
    return SearchHit(
        title=shown_title(document.title, head),
        url=reverse("documents:detail", args=[document.pk]),
        detail=detail,
    )


def _heads(documents: list[Document]) -> dict[int, str]:
    """The start of each document's text (for the shown title and the passage), in one query: the
    lists defer the full text."""
    rows = Document.objects.filter(pk__in=[d.pk for d in documents]).annotate(
        head=Left("extracted_text", HEAD)
    )
    return dict(rows.values_list("id", "head"))


def _around(text: str, words: str) -> str:
    """The passage of `text` around the first word of the query (prefix match, any case)."""
    text = " ".join((text or "").split())
    for word in WORD.findall(words):
        at = text.lower().find(word.lower())
        if at >= 0:
            start = max(0, at - SNIPPET // 3)
            return ("…" if start else "") + _snippet(text[start:])
    return ""


def _exact(principal: Principal, words: str, limit: int) -> tuple[list[Document], int]:
    return services.list_documents(principal, build(DocumentFilter, query=words[:200], limit=limit))


def provider(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    """Documents whose title or text contain the words (the exact hits)."""
    matched, total = _exact(principal, words, limit)
    more = f"{reverse('documents:index')}?{urlencode({'q': words})}"
    heads = _heads(matched)
    hits = [_hit(d, _around(heads.get(d.pk, ""), words), heads.get(d.pk, "")) for d in matched]
    return SearchSection("documents", _("Documents"), hits, total=total, more_url=more, order=30)


def similar(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    """Documents near in meaning (the knowledge store's hybrid ranking) that are not exact hits;
    the as-you-type drop-down skips embedding the query."""
    if quick:
        return SearchSection("similar_documents", _("Similar documents"), [], order=31)
    exact = {d.pk for d in _exact(principal, words, limit)[0]}
    ranked = _ranked(principal, words, limit + len(exact))
    hits = [_hit(d, passage, getattr(d, "head", "")) for d, passage in ranked if d.pk not in exact]
    return SearchSection("similar_documents", _("Similar documents"), hits[:limit], total=None, order=31)
