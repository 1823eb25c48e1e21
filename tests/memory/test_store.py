"""Writes: deduplication, conflict staging, review policy, bad input."""

import pytest

from apps.core.errors import DomainError
from apps.core.inputs import build
from apps.core.origin import Origin
from apps.memory import services
from apps.memory.contracts import MemoryBulkReview, MemoryReview, MemoryStore
from apps.memory.models import Memory, MemoryRevision
from apps.memory.visibility import Reader, usable

pytestmark = pytest.mark.django_db


def test_same_text_confirms_instead_of_duplicating(as_anna):
    first = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 14 Uhr.", scope="personal")
    )
    again = services.store(
        as_anna, build(MemoryStore, text="  die Kanzlei schließt Freitags um 14 Uhr ", scope="personal")
    )
    assert (first.outcome, again.outcome) == ("created", "confirmed")
    assert again.memory.pk == first.memory.pk
    memory = Memory.objects.get()
    assert (memory.confirmations, memory.assertion, memory.sources.count()) == (2, "confirmed", 2)


def test_reworded_fact_is_merged_into_the_memory_saying_the_same(as_anna):
    first = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 14 Uhr.", scope="personal")
    )
    again = services.store(
        as_anna, build(MemoryStore, text="Freitags schließt die Kanzlei um 14 Uhr.", scope="personal")
    )
    assert again.outcome == "created"  # the vector check is the worker's, after commit
    merged, kept = Memory.objects.get(pk=again.memory.pk), Memory.objects.get(pk=first.memory.pk)
    assert (merged.duplicate_of_id, merged.assertion, merged.checking) == (kept.pk, "retracted", False)
    assert (kept.confirmations, kept.assertion, kept.sources.count()) == (2, "confirmed", 2)
    assert list(merged.revisions.values_list("action", flat=True)) == ["created", "merged"]
    assert kept.revisions.get(action="confirmed").note.startswith("near_identical")
    assert list(usable(Reader.of(as_anna))) == [kept]


def test_contradicting_number_is_staged_as_conflict(as_anna):
    first = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 14 Uhr.", scope="personal")
    )
    second = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 15 Uhr.", scope="personal")
    )
    assert second.outcome == "created"
    staged = Memory.objects.get(pk=second.memory.pk)
    assert (staged.review, staged.conflicts_with_id, staged.conflict["reason"]) == (
        "pending",
        first.memory.pk,
        "numbers",
    )
    first.memory.refresh_from_db()
    assert (first.memory.review, first.memory.text, first.memory.assertion) == (
        "approved",
        "Die Kanzlei schließt freitags um 14 Uhr.",
        "disputed",
    )


def test_approving_a_conflict_retracts_the_old_fact_and_audits_both(as_anna):
    old = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 14 Uhr.", scope="personal")
    ).memory
    staged = services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 15 Uhr.", scope="personal")
    ).memory
    services.review(as_anna, staged.pk, build(MemoryReview, decision="approve", note="neue Zeiten"))
    old.refresh_from_db()
    staged.refresh_from_db()
    assert (staged.review, old.assertion) == ("approved", "retracted")
    actions = list(MemoryRevision.objects.filter(memory=old).values_list("action", flat=True))
    assert actions == ["created", "disputed", "retracted"]
    approved = MemoryRevision.objects.get(memory=staged, action="approved")
    assert (approved.before["review"], approved.after["review"], approved.note) == (
        "pending",
        "approved",
        "neue Zeiten",
    )
    assert approved.actor_label == str(as_anna.user)


def test_rejecting_a_conflict_keeps_the_old_fact(as_anna):
    old = services.store(
        as_anna, build(MemoryStore, text="Herr Maier bevorzugt Anrufe vor 10 Uhr.", scope="personal")
    ).memory
    staged = services.store(
        as_anna, build(MemoryStore, text="Herr Maier bevorzugt Anrufe nicht vor 10 Uhr.", scope="personal")
    )
    assert Memory.objects.get(pk=staged.memory.pk).conflict["reason"] == "negation"
    services.review(as_anna, staged.memory.pk, build(MemoryReview, decision="reject"))
    old.refresh_from_db()
    assert (old.review, old.assertion) == ("approved", "asserted")
    with pytest.raises(DomainError) as decided:
        services.review(as_anna, staged.memory.pk, build(MemoryReview, decision="approve"))
    assert decided.value.code == "memory_already_decided"


def test_different_subjects_never_conflict(as_anna, meier):
    from tests.factories import ClientFactory

    other = ClientFactory(name="Schulz KG", client_number="10004")
    services.store(
        as_anna,
        build(
            MemoryStore,
            text="Der Jahresabschluss ist bis 30.06. fällig.",
            scope="personal",
            subject_client_id=meier.pk,
        ),
    )
    second = services.store(
        as_anna,
        build(
            MemoryStore,
            text="Der Jahresabschluss ist bis 31.07. fällig.",
            scope="personal",
            subject_client_id=other.pk,
        ),
    )
    assert Memory.objects.get(pk=second.memory.pk).review == "approved"


def test_date_difference_is_a_conflict(as_anna, meier):
    services.store(
        as_anna,
        build(
            MemoryStore,
            text="Der Jahresabschluss ist bis 30.06.2027 fällig.",
            scope="personal",
            subject_client_id=meier.pk,
        ),
    )
    second = services.store(
        as_anna,
        build(
            MemoryStore,
            text="Der Jahresabschluss ist bis 31.07.2027 fällig.",
            scope="personal",
            subject_client_id=meier.pk,
        ),
    )
    staged = Memory.objects.get(pk=second.memory.pk)
    assert (staged.review, staged.conflict["reason"]) == ("pending", "dates")


def test_unrelated_facts_are_both_kept(as_anna):
    services.store(
        as_anna, build(MemoryStore, text="Die Kanzlei schließt freitags um 14 Uhr.", scope="personal")
    )
    second = services.store(
        as_anna, build(MemoryStore, text="Frau Schulz bevorzugt E-Mails statt Anrufe.", scope="personal")
    )
    assert second.outcome == "created" and Memory.objects.count() == 2


def test_shared_memory_from_an_agent_waits_for_review_but_an_admin_writing_it_is_approved(as_anna, as_boss):

    by_agent = services.store(
        as_anna,
        build(MemoryStore, text="Das Büro ist am 24.12. geschlossen."),
        origin=Origin(surface="agent", run_id="1"),
    )
    assert by_agent.memory.review == "pending" and by_agent.notices
    by_boss = services.store(as_boss, build(MemoryStore, text="Die Kanzlei hat 12 Parkplätze."))
    assert by_boss.memory.review == "approved"
    with pytest.raises(DomainError) as refused:
        services.review(as_anna, by_agent.memory.pk, build(MemoryReview, decision="approve"))
    assert refused.value.code == "memory_review_forbidden"
    assert list(services.reviewable(as_anna)) == []
    assert [m.pk for m in services.reviewable(as_boss)] == [by_agent.memory.pk]


def test_edit_then_approve_changes_the_text_and_keeps_before(as_anna, as_boss):
    pending = services.store(
        as_anna,
        build(MemoryStore, text="Das Büro ist am 24.12 zu"),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    services.review(
        as_boss, pending.pk, build(MemoryReview, decision="edit", text="Das Büro ist am 24.12. geschlossen.")
    )
    pending.refresh_from_db()
    assert (pending.text, pending.review, pending.reviewed_by_id) == (
        "Das Büro ist am 24.12. geschlossen.",
        "approved",
        as_boss.user.pk,
    )
    revision = MemoryRevision.objects.get(memory=pending, action="edited")
    assert revision.before["text"] == "Das Büro ist am 24.12 zu"


def test_bulk_review_decides_each_and_reports_refusals(as_anna, as_boss):
    a = services.store(
        as_anna,
        build(MemoryStore, text="Der Drucker im 2. Stock ist defekt."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    b = services.store(
        as_anna,
        build(MemoryStore, text="Besprechungsraum B hat einen Beamer."),
        origin=Origin(surface="agent", run_id="1"),
    ).memory
    services.review(as_boss, b.pk, build(MemoryReview, decision="reject"))
    outcome = services.bulk_review(
        as_boss, build(MemoryBulkReview, memory_ids=[a.pk, b.pk, 999999], decision="approve")
    )
    assert outcome["decided"] == [a.pk]
    assert {r["id"]: r["code"] for r in outcome["refused"]} == {
        b.pk: "memory_already_decided",
        999999: "memory_not_found",
    }


@pytest.mark.parametrize(
    ("values", "code", "field"),
    [
        ({"text": "x" * 2001}, "memory_too_large", "text"),
        ({"text": "  "}, "invalid_input", "text"),
        ({"text": "ok", "subject_client_id": 999999}, "client_not_found", "subject_client_id"),
        ({"text": "ok", "subject_case_id": 999999}, "case_not_found", "subject_case_id"),
        ({"text": "ok", "subject_person_id": 999999}, "person_not_found", "subject_person_id"),
        ({"text": "ok", "kind": "rumour"}, "invalid_input", "kind"),
        ({"text": "ok", "valid_until": "2020-01-01T00:00"}, "invalid_input", "valid_until"),
        (
            {"text": "ok", "valid_from": "2030-01-02", "valid_until": "2030-01-01"},
            "invalid_input",
            "valid_until",
        ),
    ],
)
def test_bad_input_is_refused_and_stores_nothing(as_anna, values, code, field):
    with pytest.raises(DomainError) as refused:
        services.store(as_anna, build(MemoryStore, scope="personal", **values))
    assert refused.value.code == code and field in refused.value.field_errors
    assert not Memory.objects.exists()


def test_a_service_principal_has_no_personal_memory(as_robot):
    with pytest.raises(DomainError) as refused:
        services.store(as_robot, build(MemoryStore, text="Geheim", scope="personal"))
    assert refused.value.field_errors.keys() == {"scope"}


def test_forget_deletes_personal_memory_with_its_trail_and_only_ones_own(as_anna, as_ben, as_boss):
    mine = services.store(
        as_anna, build(MemoryStore, text="Ich trinke Kaffee schwarz.", scope="personal", kind="preference")
    ).memory
    shared = services.store(as_boss, build(MemoryStore, text="Die Kanzlei hat 12 Parkplätze.")).memory
    with pytest.raises(DomainError) as refused:
        services.forget(as_ben, mine.pk)
    assert refused.value.code == "memory_not_found"
    with pytest.raises(DomainError) as refused:
        services.forget(as_boss, shared.pk)
    assert refused.value.code == "memory_not_forgettable"
    assert services.forget(as_anna, mine.pk) == mine.pk
    assert not Memory.objects.filter(pk=mine.pk).exists()
    assert not MemoryRevision.objects.filter(memory_id=mine.pk).exists()


def test_export_holds_personal_memory_with_history_and_nothing_of_others(as_anna, as_ben):
    services.store(
        as_anna, build(MemoryStore, text="Ich trinke Kaffee schwarz.", scope="personal", kind="preference")
    )
    services.store(as_ben, build(MemoryStore, text="Ben mag Tee.", scope="personal", kind="preference"))
    data = services.export_for(as_anna)
    assert [m["text"] for m in data["personal"]] == ["Ich trinke Kaffee schwarz."]
    assert data["personal"][0]["history"][0]["action"] == "created"
    assert "Ben mag Tee." not in str(data)


def test_every_write_records_a_live_event(as_anna):
    from apps.mutations.models import MutationEvent

    stored = services.store(as_anna, build(MemoryStore, text="Ich trinke Kaffee schwarz.", scope="personal"))
    event = MutationEvent.objects.get(topic="memory.memory.created")
    assert (event.audience, event.user_id, event.refresh_topic) == ("user", as_anna.user.pk, "memory")
    assert event.ui_actions[0]["record"]["id"] == stored.memory.pk


def test_conflicts_need_the_same_wording_not_just_a_similar_topic():
    from apps.memory import dedup

    same = "Die Kanzlei schließt freitags um 14 Uhr."
    assert dedup.difference("Die Kanzlei schließt freitags um 15 Uhr.", same) == {
        "reason": "numbers",
        "new": ["15"],
        "existing": ["14"],
    }
    assert dedup.difference("Fällig am 30.06.2027", "Fällig am 2027-06-30") is None
    assert dedup.wording_overlap("Die Kanzlei schließt freitags um 15 Uhr.", same) == 1.0
    assert dedup.wording_overlap("Meier zahlt 300 Euro Miete.", same) < dedup.SAME_WORDING
    verdict = dedup.judge("Meier zahlt 300 Euro Miete.", "fact", [(1, same, "fact", "approved", 0.93)])
    assert verdict.kind == "new"
    verdict = dedup.judge(
        "Die Kanzlei schließt freitags um 15 Uhr.", "fact", [(1, same, "fact", "pending", 0.99)]
    )
    assert verdict.kind == "new"  # a conflict is only ever against approved memory
