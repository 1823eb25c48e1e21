"""The second half of storing a memory, in the worker right after `services.store` commits: embed
its text and compare it with the holder's memories about the same subject (`dedup.judge`).

* nothing alike: the memory keeps its vector and is usable from now on (if approved);
* a near-duplicate (same claims, reworded): it is *merged* into the memory we have — that one is
  confirmed and takes over its sources, this one is retracted with `duplicate_of` pointing there;
* a contradiction of an approved memory: it is staged for review (`conflicts_with`) and the
  approved one marked disputed;
* the provider fails: the memory waits for a person's review, unchecked, as it did when the
  embedding was made in the request (`maintenance.reembed` gives it a vector later).

Until then the memory is `checking`: kept and shown on the memory page, never returned to a model
(`visibility.usable_q`), not yet in the review queue. The check runs in the worker because the
local model's embedding of one text (~40 ms) is more than a store may cost; it is idempotent (a
redelivered job finds the memory checked and does nothing) and `maintenance.recheck` picks up a
memory whose job was lost.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from apps.memory import checks, dedup, events, similarity
from apps.memory.models import Assertion, Memory, MemoryRevision, MemorySource, Review
from apps.memory.records import snapshot, with_relations
from apps.memory.services import _audit, _dispute


def _locked():
    return with_relations(Memory.objects.select_for_update(of=("self",))).select_related("owner")


@transaction.atomic
def run(memory_id: int) -> str | None:
    """Check one stored memory; returns "created", "merged", "conflict", "unchecked" (no vector)
    or None (nothing to check: checked already, or gone)."""
    memory = _locked().filter(pk=memory_id, checking=True).first()
    if memory is None:
        return None
    subject = checks.Subject(memory.subject_client, memory.subject_case, memory.subject_person)
    vector, model = similarity.embed(memory.text, subject)
    before = snapshot(memory)
    memory.checking = False
    if vector is None:
        memory.review = Review.PENDING
        memory.save(update_fields=["checking", "review", "updated_at"])
        _audit(memory, None, MemoryRevision.Action.UPDATED, before=before, note="not checked: no embedding")
        events.changed(memory, "memory.memory.updated")
        return "unchecked"
    memory.embedding, memory.embedding_model = vector, model
    candidates = similarity.nearest(memory.holder, subject, vector, model, exclude=memory.pk)
    verdict = dedup.judge(memory.text, memory.kind, candidates)
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
        _audit(
            memory,
            None,
            MemoryRevision.Action.CONFLICT_STAGED,
            before=before,
            note=f"memory:{verdict.existing_id}",
        )
        _dispute(None, verdict.existing_id, memory)
        events.changed(memory, "memory.memory.updated")
        return "conflict"
    memory.save(update_fields=["embedding", "embedding_model", "checking", "updated_at"])
    if memory.review == Review.PENDING:  # it joins a review queue now; otherwise nothing shows
        events.changed(memory, "memory.memory.updated")
    return "created"


def _merge(memory: Memory, kept: Memory, verdict: dedup.Verdict, before: dict) -> str:
    kept_before = snapshot(kept)
    kept.confirmations += memory.confirmations
    kept.last_confirmed_at = timezone.now()
    if kept.assertion == Assertion.ASSERTED:
        kept.assertion = Assertion.CONFIRMED
    kept.save(update_fields=["confirmations", "last_confirmed_at", "assertion", "updated_at"])
    MemorySource.objects.filter(memory=memory).update(memory=kept)  # the evidence stays
    similarity_note = f"({verdict.explanation['similarity']:.3f})"
    _audit(
        kept,
        None,
        MemoryRevision.Action.CONFIRMED,
        before=kept_before,
        note=f"near_identical {similarity_note} memory:{memory.pk}",
    )
    memory.duplicate_of, memory.assertion = kept, Assertion.RETRACTED
    memory.save(
        update_fields=["embedding", "embedding_model", "checking", "duplicate_of", "assertion", "updated_at"]
    )
    _audit(
        memory, None, MemoryRevision.Action.MERGED, before=before, note=f"memory:{kept.pk} {similarity_note}"
    )
    events.changed(kept, "memory.memory.confirmed")
    events.changed(memory, "memory.memory.updated")
    return "merged"
