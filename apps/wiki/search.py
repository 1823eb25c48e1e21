"""The header search's wiki section (extension point `dashboard.search_providers`, declared in
`apps.wiki.apps`): ranked wiki pages via `search_pages`."""

from __future__ import annotations

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.core.db.search import SearchHit, SearchSection
from apps.core.inputs import build
from apps.wiki import services
from apps.wiki.contracts import WikiSearch
from apps.wiki.records import page_url


def provider(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    more = f"{reverse('wiki:index')}?{urlencode({'q': words})}"
    if services.ts_query(words) is None:  # no searchable word: nothing to rank
        return SearchSection("wiki", _("Wiki"), [], total=0, more_url=more, order=50)
    pages, total = services.search_pages(principal, build(WikiSearch, query=words, limit=limit))
    hits = [SearchHit(title=page.title, url=page_url(page.slug)) for page in pages]
    return SearchSection("wiki", _("Wiki"), hits, total=total, more_url=more, order=50)
