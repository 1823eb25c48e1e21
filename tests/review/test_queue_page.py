"""The review page: only reviewers see it and decide; decisions go through the domains'
services and are audited (who, when, before → after) and shown; bulk decisions; queries
constant in rows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.core.inputs import build
from apps.core.origin import Origin
from apps.learning import services as learning_services
from apps.learning.contracts import LearningReview
from apps.learning.models import LearningDecision, LearningObject
from apps.memory.contracts import MemoryReview, MemoryStore
from apps.wiki import proposals
from apps.wiki.models import WikiProposal
from tests.review.conftest import propose_wiki, stage_fact

pytestmark = pytest.mark.django_db

QUEUE = reverse("review:queue")
DECIDE = reverse("review:decide")


def test_staff_without_the_right_sees_no_queue_and_cannot_decide(client, anna, as_anna):
    fact = stage_fact("Die Kanzlei schließt freitags um 14 Uhr.")
    proposal = propose_wiki(as_anna, "posteingang", "Neuer Text.", anna)
    client.force_login(anna)
    assert client.get(QUEUE).status_code == 403
    assert reverse("review:queue") not in client.get("/").content.decode()  # no navigation entry
    for kind, item in (("learning", fact.pk), ("wiki", proposal.pk)):
        response = client.post(DECIDE, {"kind": kind, "ids": [item], "decision": "approve"})
        assert response.status_code == 403
    fact.refresh_from_db()
    proposal.refresh_from_db()
    assert fact.status == LearningObject.Status.STAGED
    assert proposal.status == WikiProposal.Status.PENDING
    assert "review" not in client.get(reverse("navigation-badges")).json()


def test_reviewer_sees_the_queues_with_counts_in_the_navigation(client, reviewer):
    stage_fact("Die Kanzlei schließt freitags um 14 Uhr.")
    stage_fact("Der Drucker im 2. Stock ist der Farbdrucker.")
    client.force_login(reviewer)
    page = client.get(QUEUE).content.decode()
    assert "Die Kanzlei schließt freitags um 14 Uhr." in page
    assert 'data-nav-badge="review"' in page
    assert client.get(reverse("navigation-badges")).json()["review"] == 2


def test_approve_edit_and_reject_are_audited_and_shown(client, reviewer):
    approve = stage_fact("Die Kanzlei schließt freitags um 14 Uhr.")
    edit = stage_fact("Fristen trägt Frau Meier ein.")
    reject = stage_fact("Heute regnet es.")
    client.force_login(reviewer)
    client.post(DECIDE, {"kind": "learning", "ids": [approve.pk], "decision": "approve"})
    client.post(
        DECIDE,
        {
            "kind": "learning",
            "ids": [edit.pk],
            "decision": "edit",
            "text": "Fristen trägt Frau Meier-Lang ein.",
        },
    )
    response = client.post(
        DECIDE, {"kind": "learning", "ids": [reject.pk], "decision": "reject", "note": "vorübergehend"}
    )
    assert response.status_code == 302
    statuses = dict(LearningObject.objects.values_list("pk", "status"))
    assert statuses == {approve.pk: "active", edit.pk: "active", reject.pk: "rejected"}
    assert LearningObject.objects.get(pk=edit.pk).text == "Fristen trägt Frau Meier-Lang ein."
    audit = LearningDecision.objects.filter(actor="person")
    assert {(d.learning_object_id, d.decision, d.decided_by_id) for d in audit} == {
        (approve.pk, "approve", reviewer.pk),
        (edit.pk, "edit", reviewer.pk),
        (reject.pk, "reject", reviewer.pk),
    }
    edited = audit.get(learning_object=edit)
    assert edited.before["text"] == "Fristen trägt Frau Meier ein."
    assert edited.after["text"] == "Fristen trägt Frau Meier-Lang ein."

    log = client.get(QUEUE, {"kind": "learning", "state": "decided"}).content.decode()
    assert "Rita Prüfer" in log and "Fristen trägt Frau Meier ein." in log and "Meier-Lang" in log
    assert "vorübergehend" in log
    assert 'class="empty card"' in client.get(QUEUE, {"kind": "learning"}).content.decode()


def test_bulk_decisions_report_refusals_and_decide_the_rest(client, reviewer):
    first = stage_fact("Die Kanzlei schließt freitags um 14 Uhr.")
    second = stage_fact("Der Drucker im 2. Stock ist der Farbdrucker.")
    client.force_login(reviewer)
    client.post(DECIDE, {"kind": "learning", "ids": [second.pk], "decision": "reject"})
    response = client.post(
        DECIDE, {"kind": "learning", "ids": [first.pk, second.pk], "decision": "reject"}, follow=True
    )
    text = response.content.decode()
    assert f"#{second.pk}" in text  # already rejected: refused, named
    assert LearningObject.objects.get(pk=first.pk).status == "rejected"


def test_wiki_proposals_are_accepted_and_rejected_with_a_reason(client, chef, anna, as_anna):
    accept = propose_wiki(as_anna, "posteingang", "Post um 9 Uhr.", anna)
    reject = propose_wiki(as_anna, "urlaub", "Urlaub im Kalender.", anna)
    client.force_login(chef)
    assert "Post um 9 Uhr." in client.get(QUEUE, {"kind": "wiki"}).content.decode()
    client.post(DECIDE, {"kind": "wiki", "ids": [accept.pk], "decision": "approve"})
    client.post(DECIDE, {"kind": "wiki", "ids": [reject.pk], "decision": "reject"})  # no reason: refused
    assert WikiProposal.objects.get(pk=reject.pk).status == "pending"
    client.post(DECIDE, {"kind": "wiki", "ids": [reject.pk], "decision": "reject", "note": "Steht schon"})
    states = dict(WikiProposal.objects.values_list("pk", "status"))
    assert states == {accept.pk: "accepted", reject.pk: "rejected"}
    log = client.get(QUEUE, {"kind": "wiki", "state": "decided"}).content.decode()
    assert "Clara Chef" in log and "Steht schon" in log and "Post um 9 Uhr." in log


def test_a_decision_the_queue_does_not_offer_is_refused(client, chef, anna, as_anna):
    proposal = propose_wiki(as_anna, "posteingang", "Post um 9 Uhr.", anna)
    client.force_login(chef)
    client.post(DECIDE, {"kind": "wiki", "ids": [proposal.pk], "decision": "edit", "text": "x"})
    client.post(DECIDE, {"kind": "nonsense", "ids": [proposal.pk], "decision": "approve"})
    assert WikiProposal.objects.get(pk=proposal.pk).status == "pending"


def test_the_queue_paginates_and_answers_htmx_with_the_fragment(client, chef):
    for i in range(23):
        stage_fact(f"Fakt Nummer {i:02d} über die Kanzlei.")
    client.force_login(chef)
    first = client.get(QUEUE, {"kind": "learning"}).content.decode()
    assert "Fakt Nummer 00" in first and "Fakt Nummer 22" not in first
    assert "Fakt Nummer 22" in client.get(QUEUE, {"kind": "learning", "page": 2}).content.decode()
    partial = client.get(QUEUE, {"kind": "learning"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="review-queue")
    assert "<html" not in partial.content.decode() and "Fakt Nummer 00" in partial.content.decode()


@pytest.mark.parametrize("kind", ["learning", "wiki"])
def test_queries_are_constant_in_rows(client, chef, anna, as_anna, kind):
    def make(n):
        for i in range(n):
            if kind == "learning":
                stage_fact(f"Fakt {n}-{i} über die Kanzlei.")
            else:
                propose_wiki(as_anna, f"seite-{n}-{i}", f"Neuer Text {i}.", anna)

    client.force_login(chef)
    make(2)
    with CaptureQueriesContext(connection) as few:
        assert client.get(QUEUE, {"kind": kind}).status_code == 200
    make(8)
    with CaptureQueriesContext(connection) as many:
        assert client.get(QUEUE, {"kind": kind}).status_code == 200
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def test_learning_shows_its_evidence_and_filters_by_age(client, reviewer):
    stage_fact("Die Kanzlei schließt freitags um 14 Uhr.")
    client.force_login(reviewer)
    page = client.get(QUEUE, {"kind": "learning"}).content.decode()
    assert "review-evidence" in page and "„Die Kanzlei schließt freitags um 14 Uhr.“" in page
    assert "freitags" in client.get(QUEUE, {"kind": "learning", "age": "1"}).content.decode()
    assert "freitags" not in client.get(QUEUE, {"kind": "learning", "age": "older"}).content.decode()


def curator_rejected(text: str) -> LearningDecision:
    """A fact the extraction activated and the curator then rejected (as `learning.curate` records
    it: status active → rejected, with its reason and confidence)."""
    obj = stage_fact(text, confidence=0.95)
    assert obj.status == "active"
    LearningObject.objects.filter(pk=obj.pk).update(status="rejected")
    return LearningDecision.objects.create(
        learning_object=obj,
        decision="reject",
        actor="curator",
        reason="temporary",
        confidence=0.97,
        model_label="kurator-modell",
        before={"status": "active", "text": text, "staged_reason": ""},
        after={"status": "rejected", "text": text, "staged_reason": ""},
    )


def test_a_curator_decision_is_reverted_and_the_revert_is_audited(client, reviewer):
    decision = curator_rejected("Die Kanzlei hat heute bis 20 Uhr geöffnet.")
    client.force_login(reviewer)
    page = client.get(QUEUE, {"kind": "curator"}).content.decode()
    assert "Die Kanzlei hat heute bis 20 Uhr geöffnet." in page and "kurator-modell" in page
    client.post(DECIDE, {"kind": "curator", "ids": [decision.pk], "decision": "revert"})
    decision.refresh_from_db()
    assert decision.reverted_by == reviewer and decision.reverted_at is not None
    assert LearningObject.objects.get(pk=decision.learning_object_id).status == "active"
    revert = LearningDecision.objects.get(learning_object=decision.learning_object, decision="revert")
    assert (revert.decided_by, revert.before["status"], revert.after["status"]) == (
        reviewer,
        "rejected",
        "active",
    )
    assert "Die Kanzlei hat heute" not in client.get(QUEUE, {"kind": "curator"}).content.decode()
    log = client.get(QUEUE, {"kind": "curator", "state": "decided"}).content.decode()
    assert "Rita Prüfer" in log  # reverted by …
    client.post(DECIDE, {"kind": "curator", "ids": [decision.pk], "decision": "approve"})  # not offered
    assert LearningDecision.objects.filter(decision="revert").count() == 1


@pytest.mark.parametrize("kind", ["memory", "learning", "curator", "wiki"])
def test_the_audit_tab_queries_are_constant_in_rows(client, chef, as_chef, anna, as_anna, kind):
    from apps.memory import services as memory

    def make(n):
        for i in range(n):
            if kind == "memory":
                stored = memory.store(
                    as_anna,
                    build(MemoryStore, text=f"Regel {n}-{i}: Akten im Schrank {i}."),
                    origin=Origin(surface="agent", run_id="1"),
                )
                memory.review(as_chef, stored.memory.pk, build(MemoryReview, decision="approve"))
            elif kind == "learning":
                learning_services.review(
                    as_chef,
                    build(
                        LearningReview,
                        object_id=stage_fact(f"Fakt {n}-{i} über die Kanzlei.").pk,
                        decision="approve",
                    ),
                )
            elif kind == "curator":
                curator_rejected(f"Fakt {n}-{i} über die Kanzlei.")
            else:
                proposal = propose_wiki(as_anna, f"seite-{n}-{i}", f"Neuer Text {i}.", anna)
                proposals.accept_proposal(as_chef, proposal.pk)

    client.force_login(chef)
    make(2)
    with CaptureQueriesContext(connection) as few:
        assert client.get(QUEUE, {"kind": kind, "state": "decided"}).status_code == 200
    make(6)
    with CaptureQueriesContext(connection) as many:
        assert client.get(QUEUE, {"kind": kind, "state": "decided"}).status_code == 200
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def test_a_learning_reviewer_decides_learning_but_not_memory(client, as_anna):
    from django.contrib.auth.models import Permission

    from apps.memory import services as memory
    from tests.factories import UserFactory

    lena = UserFactory(email="lena@kanzlei.example")
    lena.user_permissions.add(Permission.objects.get(codename="review_learningobject"))
    pending = memory.store(
        as_anna,
        build(MemoryStore, text="Die Kanzlei ist am 24.12. geschlossen."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    client.force_login(lena)
    page = client.get(QUEUE).content.decode()
    assert "?kind=learning" in page and "?kind=memory" not in page
    assert client.get(QUEUE, {"kind": "memory"}).status_code == 200  # falls back to a queue of hers
    assert "24.12." not in client.get(QUEUE, {"kind": "memory"}).content.decode()
    response = client.post(DECIDE, {"kind": "memory", "ids": [pending.pk], "decision": "approve"})
    assert response.status_code == 403
    pending.refresh_from_db()
    assert pending.review == "pending"


def test_return_to_never_leaves_the_site(client, chef):
    fact = stage_fact("Die Kanzlei schließt freitags um 14 Uhr.")
    client.force_login(chef)
    for target in ("https://evil.example/", "//evil.example/", "javascript:alert(1)"):
        response = client.post(
            DECIDE, {"kind": "learning", "ids": [fact.pk], "decision": "reject", "return_to": target}
        )
        assert response["Location"] == QUEUE
