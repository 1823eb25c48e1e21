"""German full-text search shared by the domains: each model keeps a generated `search`
tsvector column with a GIN index; a query matches when every word prefixes a word of it."""

from __future__ import annotations

import re

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
