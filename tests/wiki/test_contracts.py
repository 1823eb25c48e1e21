"""The records the tools and live events send are exactly the declared output models."""

import pytest

from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.tools.dispatcher import dispatch
from apps.wiki import contracts as c
from apps.wiki import proposals, services

pytestmark = pytest.mark.django_db


def test_tool_answers_match_the_output_models(anna_ctx, handbook):
    found = dispatch("wiki_search", {"query": "Frist"}, anna_ctx)
    assert found.ok, found.message
    c.WikiSearchPage.model_validate(found.output)
    assert (found.output["limit"], found.output["offset"], found.output["has_more"]) == (10, 0, False)
    got = dispatch("wiki_get_page", {"slug": "posteingang"}, anna_ctx)
    c.WikiPageResult.model_validate(got.output)
    proposed = dispatch("wiki_propose_change", {"slug": "posteingang", "body": "Neu"}, anna_ctx)
    assert proposed.ok, proposed.message
    c.WikiProposalResult.model_validate(proposed.output)


def test_decided_proposals_revisions_and_events_match_the_output_models(as_anna, as_ben, handbook):
    accepted, _ = proposals.propose_change(as_anna, slug="posteingang", body="Angenommen")
    rejected, _ = proposals.propose_change(as_anna, title="Neue Seite", body="Abgelehnt")
    _, page = proposals.accept_proposal(as_ben, accepted.pk)
    rejected = proposals.reject_proposal(as_ben, rejected.pk, build(c.WikiProposalReject, reason="Nein"))
    for proposal in (proposals.get_proposal(as_ben, accepted.pk), rejected):
        c.WikiProposalOut.model_validate(c.WikiProposalOut.record(proposal))
    for revision in services.list_revisions(as_ben, page):
        c.WikiRevisionOut.model_validate(c.WikiRevisionOut.record(revision))
    records = [
        action["record"]
        for event in MutationEvent.objects.filter(topic="wiki.page.updated")
        for action in event.ui_actions
        if "record" in action
    ]
    assert records
    for record in records:
        c.WikiPageSummaryOut.model_validate(record)
