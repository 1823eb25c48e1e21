"""The wiki as a `context_search` source: office-wide pages, ranked by the wiki's own full-text
search, read back with `context_get("wiki:<id>")`."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.core.records import text_window
from apps.knowledge.context import GET_MAX_CHARS, ContextHit, ContextQuery, ContextSource
from apps.knowledge.visibility import PERSONAL
from apps.wiki import services
from apps.wiki.contracts import WikiSearch
from apps.wiki.records import page_url, snippet_text


def _search(q: ContextQuery) -> list[ContextHit]:
    if q.scope == PERSONAL:
        return []  # the wiki belongs to the whole office
    found, _total = services.search_pages(
        q.principal, build(WikiSearch, query=q.text, limit=min(q.limit, 50))
    )
    return [
        ContextHit(
            ref=f"wiki:{page.pk}",
            source="wiki",
            title=page.title,
            snippet=snippet_text(page.snippet),
            meta={"slug": page.slug, "url": page_url(page.slug), "scope": "instance"},
        )
        for page in found
    ]


def _get(principal: Principal, source_id: str, options: dict) -> dict:
    page = services.get_page(principal, page_id=source_id)
    return {
        "id": f"wiki:{page.pk}",
        "source": "wiki",
        "title": page.title,
        "slug": page.slug,
        "url": page_url(page.slug),
        "scope": "instance",
        "updated_at": page.updated_at.isoformat(),
        **text_window(page.body, options, GET_MAX_CHARS),
    }


# Declared for `knowledge.sources` in apps.py.
source = ContextSource("wiki", search=_search, get=_get, description="Office wiki pages")
