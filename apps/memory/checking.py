"""The second half of storing a memory, in the worker right after `services.store` commits: embed
its text and compare it with the holder's memories about the same subject (`dedup.judge`). The
subject is the memory's links *and* whom its text names (`subjects`): facts about different
clients, people or cases are never compared, however alike their words.

* nothing alike: the memory keeps its vector and is usable from now on (if approved);
* a near-duplicate (same claims, reworded): it is *merged* into the memory we have — that one is
  confirmed and takes over its sources, this one is retracted with `duplicate_of` pointing there
  (shown in the review log; a person may undo it, `services.unmerge`);
* a contradiction of an approved memory: it is staged for review (`conflicts_with`) and the
  approved one marked disputed;
* the provider fails: the memory waits for a person's review, unchecked, as it did when the
  embedding was made in the request (`maintenance.reembed` gives it a vector later).

Until then the memory is `checking`: kept and shown on the memory page, never returned to a model
(`visibility.usable_q`), not yet in the review queue. The check runs in the worker because the
local model's embedding of one text (~40 ms) is more than a store may cost; it is idempotent (a
redelivered job finds the memory checked and does nothing) and `maintenance.recheck` picks up a
memory whose job was lost.

A person's decision wins over the check. The text is embedded without holding the row; the
verdict is taken and written under the row lock (`select_for_update`), which `services.review`
takes too, so neither writes over the other. A memory a person approved or rejected meanwhile
(`reviewed_at`) keeps that decision: the check never puts it back to pending; a rejected one is
merged into nothing, an approved one only into an approved memory, and a contradiction it turns
out to be is recorded beside the decision (the older memory disputed) instead of staged.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from apps.clients.models import Client
from apps.memory import checks, dedup, events, similarity, subjects
from apps.memory.audit import audit, dispute
from apps.memory.models import Assertion, Memory, MemoryRevision, MemorySource, Review
from apps.memory.records import snapshot, with_relations

# What the check itself writes on every memory it concludes (an outcome adds its own fields).
CHECKED_FIELDS = ("embedding", "embedding_model", "checking", "subject_anchors", "updated_at")


def _locked():
    return with_relations(Memory.objects.select_for_update(of=("self",))).select_related("owner")


def _subject(memory: Memory) -> checks.Subject:
    return checks.Subject(memory.subject_client, memory.subject_case, memory.subject_person)


def run(memory_id: int) -> str | None:
    """Check one stored memory; returns "created", "merged", "conflict", "unchecked" (no vector),
    "decided" (a person decided meanwhile: their decision stands) or None (nothing to check:
    checked already, or gone)."""
    # Two columns, not the memory with its relations: the embedding reads the text and whose
    # client it is about (the neutralization gate). The full row is read once, locked, below.
    seen = Memory.objects.filter(pk=memory_id, checking=True).values_list("text", "subject_client_id").first()
    if seen is None:
        return None
    text, client_id = seen
    # The slow part (the embedding provider) holds no lock: a reviewer is never kept waiting on it.
    vector, model = similarity.embed(text, checks.Subject(client=Client(pk=client_id) if client_id else None))
    return _conclude(memory_id, text, vector, model)


@transaction.atomic
def _conclude(memory_id: int, embedded_text: str, vector, model: str) -> str | None:
    memory = _locked().filter(pk=memory_id, checking=True).first()
    if memory is None:  # checked by another delivery meanwhile, or gone
        return None
    subject = _subject(memory)
    if memory.text != embedded_text:  # edited meanwhile: its new words are what is checked
        vector, model = similarity.embed(memory.text, subject)
    decided = memory.reviewed_at is not None
    before = snapshot(memory)
    memory.checking = False
    scheme = subjects.office_scheme()  # read once for the memory and its candidates
    mine = subjects.of_memory(memory, scheme=scheme)
    memory.subject_anchors = mine.anchors
    if vector is None:
        if not decided:
            memory.review = Review.PENDING
        memory.save(update_fields=["checking", "review", "subject_anchors", "updated_at"])
        audit(memory, None, MemoryRevision.Action.UPDATED, before=before, note="not checked: no embedding")
        events.changed(memory, "memory.memory.updated")
        return "unchecked"
    memory.embedding, memory.embedding_model = vector, model
    candidates = _same_subject(memory, mine, vector, model, scheme)
    verdict = dedup.judge(mine.rest, memory.kind, candidates)
    if decided:
        return _after_decision(memory, verdict, before)
    if verdict.kind == "duplicate":
        kept = _locked().filter(pk=verdict.existing_id).first()
        if kept is not None:  # (forgotten meanwhile: then this one is simply new)
            return _merge(memory, kept, verdict, before)
    if verdict.kind == "conflict":
        memory.review, memory.conflicts_with_id, memory.conflict = (
            Review.PENDING,
            verdict.existing_id,
            verdict.explanation,
        )
        memory.save()
        audit(
            memory,
            None,
            MemoryRevision.Action.CONFLICT_STAGED,
            before=before,
            note=f"memory:{verdict.existing_id}",
        )
        dispute(None, verdict.existing_id, memory)
        events.changed(memory, "memory.memory.updated")
        return "conflict"
    memory.save(update_fields=CHECKED_FIELDS)
    if memory.review == Review.PENDING:  # it joins a review queue now; otherwise nothing shows
        events.changed(memory, "memory.memory.updated")
    return "created"


def _same_subject(memory: Memory, mine: subjects.Subjects, vector, model: str, scheme: dict) -> list[tuple]:
    """The nearest memories about the same subject, their texts without the names (the claims
    are compared on what is left): the links match in SQL, the names in the text here."""
    candidates = similarity.nearest(
        memory.holder, _subject(memory), vector, model, exclude=memory.pk, anchors=mine.anchors
    )
    kept = []
    for memory_id, text, kind, review, similarity_ in candidates:
        theirs = subjects.of_memory(memory, text, scheme=scheme)  # the same links: only the names differ
        if subjects.same(mine, theirs):
            kept.append((memory_id, theirs.rest, kind, review, similarity_))
    return kept


def _after_decision(memory: Memory, verdict: dedup.Verdict, before: dict) -> str:
    """A person approved or rejected the memory while it was being checked: that stands."""
    approved = memory.review == Review.APPROVED
    if approved and verdict.kind == "duplicate":
        kept = _locked().filter(pk=verdict.existing_id).first()
        if kept is not None and kept.review == Review.APPROVED:
            return _merge(memory, kept, verdict, before)
    note = "checked after the decision"
    if approved and verdict.kind == "conflict":
        memory.conflicts_with_id, memory.conflict = verdict.existing_id, verdict.explanation
        note = f"{note}; contradicts memory:{verdict.existing_id}"
    memory.save(update_fields=[*CHECKED_FIELDS, "conflicts_with", "conflict"])
    audit(memory, None, MemoryRevision.Action.UPDATED, before=before, note=note)
    if memory.conflicts_with_id:
        dispute(None, memory.conflicts_with_id, memory)
    events.changed(memory, "memory.memory.updated")
    return "decided"


def _merge(memory: Memory, kept: Memory, verdict: dedup.Verdict, before: dict) -> str:
    kept_before = snapshot(kept)
    kept.confirmations += memory.confirmations
    kept.last_confirmed_at = timezone.now()
    if kept.assertion == Assertion.ASSERTED:
        kept.assertion = Assertion.CONFIRMED
    kept.save(update_fields=["confirmations", "last_confirmed_at", "assertion", "updated_at"])
    # The evidence stays, and goes back if a person undoes the merge (`services.unmerge`).
    MemorySource.objects.filter(memory=memory).update(memory=kept, moved_from=memory)
    similarity_note = f"({verdict.explanation['similarity']:.3f})"
    audit(
        kept,
        None,
        MemoryRevision.Action.CONFIRMED,
        before=kept_before,
        note=f"near_identical {similarity_note} memory:{memory.pk}",
    )
    memory.duplicate_of, memory.assertion = kept, Assertion.RETRACTED
    memory.save(update_fields=[*CHECKED_FIELDS, "duplicate_of", "assertion"])
    audit(
        memory, None, MemoryRevision.Action.MERGED, before=before, note=f"memory:{kept.pk} {similarity_note}"
    )
    events.changed(kept, "memory.memory.confirmed")
    events.changed(memory, "memory.memory.updated")
    return "merged"
