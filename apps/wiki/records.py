"""The wire shapes of wiki pages, revisions and proposals (tools, pages and live events). Fast
dict builders; `apps.wiki.contracts` declares every key they emit."""

from __future__ import annotations

import html

from django.db.models import QuerySet
from django.urls import reverse

from apps.accounts.contracts import person_ref
from apps.core.records import attrs, iso
from apps.wiki.models import WikiPage, WikiProposal, WikiRevision

# ts_headline marks matches with these control characters; they never occur in page text, so
# the snippet can be escaped first and marked up afterwards (see `snippet_html`).
MARK_START, MARK_STOP = "\x02", "\x03"


def with_relations(qs: QuerySet[WikiPage]) -> QuerySet[WikiPage]:
    return qs.select_related("current_revision", "updated_by")


def page_url(slug: str) -> str:
    return reverse("wiki:page", args=[slug])


def page_summary(page: WikiPage) -> dict:
    """Small enough for live events and lists: no body."""
    return {
        "id": page.pk,
        **attrs(page, "slug", "title"),
        "revision": page.revision_number,
        "updated_at": page.updated_at.isoformat(),
        "url": page_url(page.slug),
    }


def page_record(page: WikiPage) -> dict:
    return page_summary(page) | {
        "body": page.body,
        "updated_by": person_ref(page.updated_by),
        "created_at": page.created_at.isoformat(),
    }


def snippet_text(raw: str) -> str:
    """Plain-text snippet for the model: matches wrapped in **…**."""
    return (raw or "").replace(MARK_START, "**").replace(MARK_STOP, "**")


def search_hit(page: WikiPage) -> dict:
    """A page found by `services.search_pages` (annotated with `snippet` and `rank`)."""
    return page_summary(page) | {"snippet": snippet_text(page.snippet), "rank": round(float(page.rank), 4)}


def snippet_html(raw: str) -> str:
    """Escaped snippet for pages: only our own <mark> tags survive."""
    escaped = html.escape(raw or "")
    return escaped.replace(MARK_START, "<mark>").replace(MARK_STOP, "</mark>")


def revision_record(revision: WikiRevision) -> dict:
    return {
        **attrs(revision, "number", "title"),
        "author": person_ref(revision.author),
        "comment": revision.comment,
        "created_at": revision.created_at.isoformat(),
        "proposal_id": revision.proposal_id,
    }


def proposal_record(proposal: WikiProposal) -> dict:
    return {
        "id": proposal.pk,
        **attrs(proposal, "page_id", "slug", "is_new_page"),
        "base_revision": proposal.base_revision.number if proposal.base_revision else None,
        **attrs(proposal, "title", "comment", "status"),
        "proposed_by": person_ref(proposal.proposed_by),
        "proposed_by_service": proposal.proposed_by_service.name if proposal.proposed_by_service else None,
        "run_id": proposal.run_id or None,
        "reviewer": person_ref(proposal.reviewer),
        "decided_at": iso(proposal.decided_at),
        "reason": proposal.reason,
        "created_at": proposal.created_at.isoformat(),
        "review_url": reverse("wiki:proposals"),
    }
