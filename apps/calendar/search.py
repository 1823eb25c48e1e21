"""German full-text search over calendar entries (prefix matching on the GIN index)."""

from __future__ import annotations

import re

from django.contrib.postgres.search import SearchQuery
from django.db.models import QuerySet

_WORD = re.compile(r"[\w-]+", re.UNICODE)


def search(qs: QuerySet, text: str) -> QuerySet:
    """Every word must match a word of title, description, location or client by its beginning:
    "meier gespräch" finds "Mandantengespräch Meier GmbH"."""
    words = [w.strip("-") for w in _WORD.findall(text.lower()) if w.strip("-")]
    if not words:
        return qs
    query = SearchQuery(" & ".join(f"{w}:*" for w in words[:10]), search_type="raw", config="german")
    return qs.filter(search=query)
