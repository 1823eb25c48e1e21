"""The output models build exactly the records the old hand-written builders did (kept here as
the reference, byte for byte): pages, summaries, search hits, revisions and proposals."""

import json

import pytest
from django.urls import reverse

from apps.accounts.contracts import person_ref
from apps.core.inputs import build
from apps.core.records import attrs, iso
from apps.wiki import contracts as c
from apps.wiki import proposals, services
from apps.wiki.records import snippet_text
from tests.factories import ServicePrincipalFactory

pytestmark = pytest.mark.django_db


# --- the builders of apps/wiki/records.py before the conversion --------------------------------
def page_summary(page) -> dict:
    return {
        "id": page.pk,
        **attrs(page, "slug", "title"),
        "revision": page.revision_number,
        "updated_at": page.updated_at.isoformat(),
        "url": reverse("wiki:page", args=[page.slug]),
    }


def page_record(page) -> dict:
    return page_summary(page) | {
        "body": page.body,
        "updated_by": person_ref(page.updated_by),
        "created_at": page.created_at.isoformat(),
    }


def search_hit(page) -> dict:
    return page_summary(page) | {"snippet": snippet_text(page.snippet), "rank": round(float(page.rank), 4)}


def revision_record(revision) -> dict:
    return {
        **attrs(revision, "number", "title"),
        "author": person_ref(revision.author),
        "comment": revision.comment,
        "created_at": revision.created_at.isoformat(),
        "proposal_id": revision.proposal_id,
    }


def proposal_record(proposal) -> dict:
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


def same(new: dict, old: dict) -> None:
    assert json.dumps(new, ensure_ascii=False) == json.dumps(old, ensure_ascii=False)


def test_pages_summaries_and_search_hits(as_anna, as_ben, handbook):
    page = services.update_page(as_ben, "posteingang", build(c.WikiPageUpdate, body="Bescheide **sofort**"))
    for row in (page, services.get_page(as_anna, slug="fristenkontrolle")):
        same(c.WikiPageOut.record(row), page_record(row))
        same(c.WikiPageSummaryOut.record(row), page_summary(row))
    hits, _total = services.search_pages(as_anna, build(c.WikiSearch, query="frist"))
    assert hits
    for hit in hits:
        same(c.WikiSearchHitOut.record(hit), search_hit(hit))


def test_revisions_and_proposals_in_every_state(as_anna, as_ben, anna, handbook):
    service = ServicePrincipalFactory(name="Nachtlauf")
    from apps.accounts.principal import Principal

    accepted, _ = proposals.propose_change(as_anna, slug="posteingang", body="Angenommen", run_id="r-1")
    rejected, _ = proposals.propose_change(as_anna, title="Neue Seite", body="Abgelehnt")
    pending, _ = proposals.propose_change(Principal.for_service(service), slug="datenschutz", body="Offen")
    _, page = proposals.accept_proposal(as_ben, accepted.pk)
    proposals.reject_proposal(as_ben, rejected.pk, build(c.WikiProposalReject, reason="Nein"))
    for proposal_id in (accepted.pk, rejected.pk, pending.pk):
        row = proposals.get_proposal(as_ben, proposal_id)
        same(c.WikiProposalOut.record(row), proposal_record(row))
    for revision in services.list_revisions(as_ben, page):
        same(c.WikiRevisionOut.record(revision), revision_record(revision))
