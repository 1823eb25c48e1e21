"""German full-text search shared by the domains: each model keeps a generated `search`
tsvector column with a GIN index; a query matches when every word prefixes a word of it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.contrib.postgres.search import SearchQuery
from django.db.models import QuerySet

WORD = re.compile(r"[\w-]+", re.UNICODE)


def search(qs: QuerySet, text: str) -> QuerySet:
    """Every word must match the beginning of an indexed word (German stemming):
    "meier bescheid" finds "Bescheid Meier GmbH"."""
    words = [w.strip("-") for w in WORD.findall(text.lower()) if w.strip("-")]
    if not words:
        return qs
    query = SearchQuery(" & ".join(f"{w}:*" for w in words[:10]), search_type="raw", config="german")
    return qs.filter(search=query)


# --- the header search (`dashboard.search_providers`) ------------------------------------------
# A provider is a callable `(principal, words, *, limit, quick) -> SearchSection` contributed by
# the app that owns the rows, which reads them through its own visibility/service functions.
# `quick` is the as-you-type drop-down: skip anything slow (e.g. embedding the query).


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str
    detail: str = ""  # one short line under the title: the client, the board, the folder …


@dataclass(frozen=True)
class SearchSection:
    key: str  # stable, e.g. "tasks"
    label: Any  # a (lazy) translation, the section's heading
    hits: list[SearchHit] = field(default_factory=list)
    total: int | None = None  # None: a ranked search without a full count (hybrid retrieval)
    more_url: str = ""  # the owning app's own list, filtered by the same words
    order: int = 100
