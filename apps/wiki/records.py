"""Helpers of the wiki's wire shapes (the output models in `apps.wiki.contracts` build the
records themselves): the relations a page record reads, its address, and search snippets."""

from __future__ import annotations

import html

from django.db.models import QuerySet
from django.urls import reverse

from apps.wiki.models import WikiPage

# ts_headline marks matches with these control characters; they never occur in page text, so
# the snippet can be escaped first and marked up afterwards (see `snippet_html`).
MARK_START, MARK_STOP = "\x02", "\x03"


def with_relations(qs: QuerySet[WikiPage]) -> QuerySet[WikiPage]:
    return qs.select_related("current_revision", "updated_by")


def page_url(slug: str) -> str:
    return reverse("wiki:page", args=[slug])


def snippet_text(raw: str) -> str:
    """Plain-text snippet for the model: matches wrapped in **…**."""
    return (raw or "").replace(MARK_START, "**").replace(MARK_STOP, "**")


def snippet_html(raw: str) -> str:
    """Escaped snippet for pages: only our own <mark> tags survive."""
    escaped = html.escape(raw or "")
    return escaped.replace(MARK_START, "<mark>").replace(MARK_STOP, "</mark>")
