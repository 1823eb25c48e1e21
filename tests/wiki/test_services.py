"""Wiki services: direct edits by people with revisions, proposals for everything else."""

import pytest

from apps.core.errors import Forbidden, InvalidInput, VersionConflict
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.wiki import proposals, services
from apps.wiki.contracts import WikiPageCreate, WikiPageUpdate, WikiProposalReject, WikiSearch
from apps.wiki.errors import ProposalConflict, ProposalNotPending, SlugTaken
from apps.wiki.models import WikiPage, WikiProposal, WikiRevision

pytestmark = pytest.mark.django_db


def test_create_and_edit_keep_numbered_revisions(as_anna, as_ben, ben, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        page = services.create_page(
            as_anna, build(WikiPageCreate, title="Fristenkontrolle Übersicht", body="Erste Fassung")
        )
    assert page.slug == "fristenkontrolle-uebersicht" and page.revision_number == 1
    edited = services.update_page(
        as_ben, page.slug, build(WikiPageUpdate, body="Zweite Fassung", comment="ergänzt", base_revision=1)
    )
    assert edited.revision_number == 2 and edited.updated_by == ben
    assert list(page.revisions.values_list("number", "body")) == [(2, "Zweite Fassung"), (1, "Erste Fassung")]
    unchanged = services.update_page(as_ben, page.slug, build(WikiPageUpdate, body="Zweite Fassung"))
    assert unchanged.revision_number == 2  # nothing changed: no new revision
    topics = list(MutationEvent.objects.values_list("topic", "audience", "refresh_topic"))
    assert topics == [("wiki.page.updated", "all", "wiki.pages")] * 2


def test_slug_clash_and_reserved_slugs_have_clear_codes(as_anna, handbook):
    with pytest.raises(SlugTaken) as clash:
        services.create_page(as_anna, build(WikiPageCreate, title="Noch einmal", slug="posteingang"))
    assert clash.value.code == "wiki_slug_taken" and "slug" in clash.value.details["field_errors"]
    with pytest.raises(InvalidInput) as reserved:
        services.create_page(as_anna, build(WikiPageCreate, title="Neu"))
    assert reserved.value.details["field_errors"].keys() == {"title"}
    with pytest.raises(InvalidInput):
        services.create_page(as_anna, build(WikiPageCreate, title="   "))
    assert WikiPage.objects.count() == 3 and WikiRevision.objects.count() == 3


def test_stale_edit_is_refused(as_anna, as_ben, handbook):
    services.update_page(
        as_ben, "posteingang", build(WikiPageUpdate, body="Ben war schneller", base_revision=1)
    )
    with pytest.raises(VersionConflict) as conflict:
        services.update_page(
            as_anna, "posteingang", build(WikiPageUpdate, body="Annas Text", base_revision=1)
        )
    assert conflict.value.code == "version_conflict"
    assert WikiPage.objects.get(slug="posteingang").body == "Ben war schneller"


def test_only_people_edit_and_public_embeds_cannot_read(as_robot, as_embed, handbook):
    with pytest.raises(Forbidden):
        services.update_page(as_robot, "posteingang", build(WikiPageUpdate, body="Automatisch"))
    with pytest.raises(Forbidden):
        services.create_page(as_robot, build(WikiPageCreate, title="Automatisch"))
    assert services.get_page(as_robot, slug="posteingang").title == "Posteingang"
    with pytest.raises(Forbidden):
        services.get_page(as_embed, slug="posteingang")
    with pytest.raises(Forbidden):
        services.search_pages(as_embed, build(WikiSearch, query="post"))


def test_search_is_ranked_german_and_has_marked_snippets(as_anna, handbook):
    pages, total = services.search_pages(as_anna, build(WikiSearch, query="fristen"))
    assert total == 2 and pages[0].slug == "fristenkontrolle"  # the title match ranks first
    assert "\x02" in pages[1].snippet  # the hit is marked
    assert (
        services.search_pages(as_anna, build(WikiSearch, query="bescheid"))[0][0].slug == "posteingang"
    )  # stemmed: Bescheide
    with pytest.raises(InvalidInput):
        services.search_pages(as_anna, build(WikiSearch, query="!!!"))


def test_proposal_accepted_becomes_a_revision(
    as_anna, as_ben, ben, handbook, django_capture_on_commit_callbacks
):
    new_body = handbook["post"].body + "\n\nFristrelevante Post im Team-Raum melden."
    proposal, created = proposals.propose_change(as_anna, slug="posteingang", body=new_body, run_id="r1")
    again, created_again = proposals.propose_change(as_anna, slug="posteingang", body=new_body)
    assert created and not created_again and again.pk == proposal.pk
    assert WikiPage.objects.get(slug="posteingang").body != new_body  # nothing applied yet
    with django_capture_on_commit_callbacks(execute=True):
        accepted, page = proposals.accept_proposal(as_ben, proposal.pk)
    assert accepted.status == "accepted" and accepted.reviewer == ben and accepted.decided_at
    assert page.body == new_body and page.revision_number == 2
    assert page.current_revision.proposal_id == proposal.pk and page.current_revision.author == ben
    with pytest.raises(ProposalNotPending):
        proposals.reject_proposal(as_ben, proposal.pk, build(WikiProposalReject, reason="zu spät"))
    assert MutationEvent.objects.filter(topic="wiki.proposal.updated").count() == 2


def test_proposal_for_a_new_page_and_rejection(as_anna, as_ben, as_robot, handbook):
    new, _ = proposals.propose_change(as_robot, title="Kanzleiküche", body="Spülmaschine abends starten.")
    assert new.is_new_page and new.slug == "kanzleikueche" and new.proposed_by_service is not None
    _, page = proposals.accept_proposal(as_ben, new.pk)
    assert page.slug == "kanzleikueche" and page.revision_number == 1
    other, _ = proposals.propose_change(as_anna, page_id=handbook["daten"].pk, body="Alles egal.")
    with pytest.raises(InvalidInput):
        proposals.reject_proposal(as_ben, other.pk, build(WikiProposalReject, reason=" "))
    rejected = proposals.reject_proposal(
        as_ben, other.pk, build(WikiProposalReject, reason="Widerspricht der DSGVO")
    )
    assert rejected.status == "rejected" and rejected.reason == "Widerspricht der DSGVO"
    assert WikiPage.objects.get(slug="datenschutz").body == "Mandantendaten bleiben in der Kanzlei."


def test_accepting_a_stale_proposal_is_a_conflict(as_anna, as_ben, handbook):
    proposal, _ = proposals.propose_change(as_anna, slug="posteingang", body="Vorschlag")
    services.update_page(as_ben, "posteingang", build(WikiPageUpdate, body="Inzwischen geändert"))
    with pytest.raises(ProposalConflict) as conflict:
        proposals.accept_proposal(as_ben, proposal.pk)
    assert conflict.value.code == "proposal_conflict"
    assert WikiProposal.objects.get().status == "pending"
    assert WikiPage.objects.get(slug="posteingang").body == "Inzwischen geändert"


def test_new_page_proposal_whose_slug_was_taken_meanwhile(as_anna, as_ben):
    proposal, _ = proposals.propose_change(as_anna, slug="urlaub", title="Urlaub", body="Antrag bis März.")
    services.create_page(as_ben, build(WikiPageCreate, slug="urlaub", title="Urlaub", body="Schon da"))
    with pytest.raises(SlugTaken):
        proposals.accept_proposal(as_ben, proposal.pk)
    assert WikiProposal.objects.get().status == "pending"


def test_only_people_decide_on_proposals(as_anna, as_robot, handbook):
    proposal, _ = proposals.propose_change(as_anna, slug="posteingang", body="Neu")
    with pytest.raises(Forbidden):
        proposals.accept_proposal(as_robot, proposal.pk)
    with pytest.raises(InvalidInput):
        proposals.propose_change(as_anna, slug="posteingang", body=handbook["post"].body)


def test_a_rejection_reason_is_checked_by_its_input_model(as_anna, as_ben, handbook):
    """The page form, the review queue and the admin reject through `WikiProposalReject`."""
    from apps.wiki.forms import RejectForm

    proposal, _ = proposals.propose_change(as_anna, page_id=handbook["daten"].pk, body="Alles egal.")
    form = RejectForm({"reason": "  Widerspricht der DSGVO  "})
    assert form.is_valid() and form.validated == WikiProposalReject(reason="Widerspricht der DSGVO")
    too_long = RejectForm({"reason": "x" * 2001})
    assert not too_long.is_valid() and list(too_long.errors) == ["reason"]
    with pytest.raises(InvalidInput) as error:
        build(WikiProposalReject, reason="x" * 2001)
    assert list(error.value.field_errors) == ["reason"]
    rejected = proposals.reject_proposal(as_ben, proposal.pk, form.validated)
    assert rejected.status == "rejected" and rejected.reason == "Widerspricht der DSGVO"
