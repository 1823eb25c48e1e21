"""Live events of the wiki. The handbook is office-wide, so every event is one all-users row."""

from __future__ import annotations

from apps.mutations import actions
from apps.mutations.audience import EVERYONE, announced_remove, announced_upsert, send
from apps.wiki.contracts import WikiPageSummaryOut
from apps.wiki.models import WikiPage, WikiProposal

LIST = "wiki-pages"
PAGES_TOPIC = "wiki.pages"
PROPOSALS_TOPIC = "wiki.proposals"


def page_changed(page: WikiPage, announce_key: str) -> None:
    send(
        EVERYONE,
        "wiki.page.updated",
        announced_upsert(LIST, WikiPageSummaryOut.record(page), announce_key),
        refresh_topic=PAGES_TOPIC,
    )


def page_deleted(page_id: int) -> None:
    send(
        EVERYONE,
        "wiki.page.deleted",
        announced_remove(LIST, page_id, "wiki.page.deleted"),
        refresh_topic=PAGES_TOPIC,
    )


def proposal_changed(proposal: WikiProposal, announce_key: str) -> None:
    """Open review queues refetch (refresh_topic); the highlight carries the spoken notice."""
    action = actions.highlight(f"proposal-{proposal.pk}") | {"announce_key": announce_key}
    send(EVERYONE, "wiki.proposal.updated", [action], refresh_topic=PROPOSALS_TOPIC)
