"""The only writer of durable memory: the agent tools, the REST API, the review queue, the memory
page, the admin and jobs all call these functions with a `Principal` and the operation's validated
input model (`contracts.py`; internal callers build it with `apps.core.inputs.build`). Where a
memory came from (its source, its specialist, its default scope) is decided here from the caller's
`Origin`.

    store(principal, MemoryStore, origin=)             same text → confirm; else stored, checked after
                                                        commit by the worker (`checking.run`):
                                                        near-duplicate → merged, contradiction → staged
    review(principal, memory_id, MemoryReview)          approve, reject or edit-then-approve
    bulk_review(principal, MemoryBulkReview)
    update(principal, memory_id, MemoryUpdate)          the fields sent
    retract(principal, memory_id, note="")
    forget(principal, memory_id) / forget_all(principal)   hard delete of personal memory (GDPR)
    export_for(principal)                               everything held about the person, as JSON
    reviewable(principal, state="pending")              the review queue's rows
    review_log(principal, limit=50, offset=0)           its decisions and the check's merges, newest first
    unmerge(principal, memory_id, note="")              undo the check's merge of a memory (review log)

Every change writes a `MemoryRevision` (who, when, before → after, note) and a live mutation
event (`record_mutation`), in the same transaction as the change.

Review policy of a new memory: a contradiction of an approved memory is always staged (pending,
`conflicts_with`); personal memory is the holder's own and is approved at once; shared memory is
approved at once only when a person who may review the office's memory writes it themselves,
otherwise (agent, API key, automation) it waits for review. A memory that could not be checked
for contradictions (no embedding) waits too. Whatever its review state, a new memory is used only
once the worker has checked it (`checking`, see `checking.py`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import User
from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.errors import DomainError, Forbidden, InvalidInput
from apps.core.origin import INTERNAL, Origin
from apps.core.queue import enqueue
from apps.memory import checks, dedup, events, similarity, subjects
from apps.memory.audit import audit, changed
from apps.memory.contracts import (
    MemoryBulkReview,
    MemoryOut,
    MemoryReview,
    MemoryRevisionOut,
    MemorySourceOut,
    MemoryStore,
    MemoryUpdate,
)
from apps.memory.errors import (
    AlreadyDecided,
    DuplicateMemory,
    MemoryNotFound,
    NotForgettable,
    NotMerged,
    ReviewNotAllowed,
)
from apps.memory.models import (
    NOTE_MAX,
    Assertion,
    Memory,
    MemoryRevision,
    MemorySource,
    Review,
    Scope,
    SourceKind,
    holder_key,
)
from apps.memory.records import snapshot, with_relations
from apps.memory.visibility import Reader, can_review_shared, held, may_review, reviewable_q

logger = logging.getLogger(__name__)

LOG_MAX = 200  # the review log's largest page
CHECK_JOB = "apps.memory.jobs.check"  # checking.run, after the store commits


@dataclass
class Stored:
    """What `store` did: `outcome` is "created" (stored; the worker checks it for near-duplicates
    and contradictions next, see `checking.run`) or "confirmed" (the same text was remembered
    already: that memory is confirmed)."""

    memory: Memory
    outcome: str
    notices: list[str] = field(default_factory=list)


def _holder_for(reader: Reader, scope: str) -> tuple[str, User | None, str]:
    """(holder, owner, specialist) of a memory stored in `scope` by this reader."""
    if scope == Scope.SHARED:
        if not reader.shared:
            raise Forbidden(_("Office memory is not available here."))
        return holder_key(), None, ""
    if reader.personal_holder is None:
        raise validation.invalid("scope", _("personal memory is not available here"))
    if reader.personal_holder.startswith("specialist:"):
        return reader.personal_holder, None, reader.personal_holder.split(":", 1)[1]
    return reader.personal_holder, reader.principal.user, ""


def _withdraw(principal: Principal, memory: Memory, note: str) -> None:
    before = snapshot(memory)
    memory.assertion = Assertion.RETRACTED
    memory.save(update_fields=["assertion", "updated_at"])
    changed(
        memory, principal, MemoryRevision.Action.RETRACTED, "memory.memory.updated", before=before, note=note
    )


# --- storing ----------------------------------------------------------------------------------
def _source(origin: Origin) -> tuple[str, str]:
    """(kind, ref) of what a memory stored from `origin` was said in: the chat run, the API key
    (its public prefix), else the person."""
    if origin.run_id:
        return SourceKind.CHAT_RUN, origin.run_id
    if origin.api_key_prefix is not None:
        return SourceKind.API_KEY, origin.api_key_prefix
    return SourceKind.PERSON, ""


@transaction.atomic
def store(principal: Principal, data: MemoryStore, *, origin: Origin = INTERNAL) -> Stored:
    """Remember something. The same fact said again confirms the memory we have; otherwise it is
    stored and, right after commit, checked by the worker: reworded it is merged into the memory
    we have, contradicting an approved one it is staged for review beside it. Nothing is ever
    overwritten. In a specialist's run the memory is the specialist's (personal by default)."""
    text, kind, quote = checks.clean_text(data.text), data.kind, data.quote or ""
    source_kind, source_ref = _source(origin)
    scope = data.scope or (Scope.PERSONAL if origin.agent_id else Scope.SHARED)
    reader = Reader.of(principal, origin.agent_id or "")
    holder, owner, specialist_id = _holder_for(reader, scope)
    subject = checks.resolve_subject(
        principal, data.subject_client_id, data.subject_case_id, data.subject_person_id
    )
    start, end = checks.validity(data.valid_from, data.valid_until)
    key = dedup.canonical_key(text, subject.key)

    same = _live(holder, key)
    if same is not None:
        return _confirm(principal, same, source_kind, source_ref, quote, {"reason": "same_text"})
    # Embedding the text (~40 ms on the local model) and the vector checks run in the worker
    # after commit (`checking.run`); until then the memory is stored but not used (`checking`).
    memory = Memory(
        text=text,
        canonical_key=key,
        kind=kind,
        scope=scope,
        owner=owner,
        specialist=specialist_id,
        holder=holder,
        subject_client=subject.client,
        subject_case=subject.case,
        subject_person=subject.person,
        subject_anchors=subjects.of(
            text, client=subject.client, case=subject.case, person=subject.person
        ).anchors,
        source_kind=source_kind,
        source_ref=source_ref,
        created_by=principal.audit_actor,
        valid_from=start,
        valid_until=end,
        checking=True,
    )
    notices: list[str] = []
    if scope == Scope.PERSONAL or (source_kind == SourceKind.PERSON and can_review_shared(principal)):
        memory.review = Review.APPROVED
    else:
        notices.append(_("Office memory waits for a person's review before the copilot uses it."))
    notices.append(_("It is checked for duplicates and contradictions first, usually within a second."))
    try:
        with transaction.atomic():
            memory.save()
    except IntegrityError:  # the same fact stored concurrently: confirm that one
        same = _live(holder, key)
        if same is None:
            raise
        return _confirm(principal, same, source_kind, source_ref, quote, {"reason": "same_text"})
    MemorySource.objects.create(
        memory=memory, kind=source_kind, ref=source_ref, quote=quote, added_by=principal.audit_actor
    )
    changed(memory, principal, MemoryRevision.Action.CREATED, "memory.memory.created")
    enqueue(CHECK_JOB, memory.pk)  # a broker down then: `maintenance.recheck` finds it later
    return Stored(memory, "created", notices)


def _locked() -> QuerySet[Memory]:
    """Memory rows locked for a confirmation, with what its record and event read (one query,
    the row alone locked, its vector not fetched)."""
    return with_relations(Memory.objects.select_for_update(of=("self",))).select_related("owner")


def _live(holder: str, key: str) -> Memory | None:
    return (
        _locked()
        .filter(holder=holder, canonical_key=key)
        .exclude(review=Review.REJECTED)
        .exclude(assertion=Assertion.RETRACTED)
        .first()
    )


def _confirm(
    principal: Principal, memory: Memory, source_kind: str, source_ref: str, quote: str, why: dict
) -> Stored:
    before = snapshot(memory)
    memory.confirmations += 1
    memory.last_confirmed_at = timezone.now()
    if memory.assertion == Assertion.ASSERTED:
        memory.assertion = Assertion.CONFIRMED
    memory.save(update_fields=["confirmations", "last_confirmed_at", "assertion", "updated_at"])
    MemorySource.objects.create(
        memory=memory, kind=source_kind, ref=source_ref, quote=quote, added_by=principal.audit_actor
    )
    note = why.get("reason", "")
    if "similarity" in why:
        note = f"{note} ({why['similarity']:.3f})"
    changed(
        memory,
        principal,
        MemoryRevision.Action.CONFIRMED,
        "memory.memory.confirmed",
        before=before,
        note=note,
    )
    return Stored(
        memory,
        "confirmed",
        [_("This was already remembered (memory %(id)s); it is now confirmed.") % {"id": memory.pk}],
    )


def _settle(principal: Principal, memory: Memory, note: str) -> None:
    """A disputed memory whose last pending challenger was decided against: undisputed again."""
    if memory.assertion != Assertion.DISPUTED or memory.conflicts.filter(review=Review.PENDING).exists():
        return
    before = snapshot(memory)
    memory.assertion = (
        Assertion.CONFIRMED if memory.confirmations > 1 or memory.reviewed_by_id else Assertion.ASSERTED
    )
    memory.save(update_fields=["assertion", "updated_at"])
    changed(
        memory, principal, MemoryRevision.Action.RESTORED, "memory.memory.updated", before=before, note=note
    )


# --- reviewing --------------------------------------------------------------------------------
def reviewable(principal: Principal, *, state: Review | None = Review.PENDING) -> QuerySet[Memory]:
    """The memories the principal may decide about, oldest first (the review queue), once checked
    (a contradiction found by the check changes what there is to decide). `state` None: every
    review state. Conflicts carry the memory they contradict (`conflicts_with`)."""
    qs = with_relations(Memory.objects.filter(reviewable_q(principal), checking=False))
    qs = qs.select_related("conflicts_with")
    if state is not None:
        qs = qs.filter(review=state)
    return qs.order_by("created_at", "id")


REVIEW_ACTIONS = (
    MemoryRevision.Action.APPROVED,
    MemoryRevision.Action.EDITED,
    MemoryRevision.Action.REJECTED,
    MemoryRevision.Action.MERGED,
    MemoryRevision.Action.UNMERGED,
)


def review_log(principal: Principal, *, limit: int = 50, offset: int = 0) -> tuple[list[MemoryRevision], int]:
    """The review decisions (approved, edited, rejected) and the check's merges (which a person
    may undo, `unmerge`) on memories the principal may decide about, newest first: the review
    queue's audit (who, when, before → after, note)."""
    mine = Memory.objects.filter(reviewable_q(principal)).values("id")
    qs = MemoryRevision.objects.filter(action__in=REVIEW_ACTIONS, memory_id__in=mine)
    limit, offset = validation.page(limit, offset, LOG_MAX)
    rows = list(
        qs.select_related("memory", "actor")
        .defer("memory__embedding")
        .order_by("-created_at", "-id")[offset : offset + limit]
    )
    return rows, qs.count()


def _for_decision(principal: Principal, memory_id: int) -> Memory:
    memory = Memory.objects.select_for_update(of=("self",)).filter(pk=memory_id).first()
    if memory is None or not may_review(principal, memory):
        if memory is not None and memory.holder == holder_key() and principal.user is not None:
            raise ReviewNotAllowed(_("Only people allowed to review the office's memory can decide this."))
        raise MemoryNotFound(_("There is no memory with id %(id)s.") % {"id": memory_id})
    return memory


@transaction.atomic
def review(principal: Principal, memory_id: int, data: MemoryReview) -> Memory:
    """Approve, reject, or edit-then-approve (`decision="edit"`, or "approve" with `text`) one
    pending memory. Approving a staged conflict retracts the memory it contradicts; rejecting it
    leaves that memory as it was."""
    decision, text, note = data.decision, data.text, data.note
    memory = _for_decision(principal, memory_id)
    if memory.review != Review.PENDING:
        raise AlreadyDecided(
            _("Memory %(id)s was already decided (%(state)s).")
            % {"id": memory.pk, "state": memory.get_review_display()},
            details={"current": MemoryOut.record(memory)},
        )
    if decision == "edit" and text is None:
        raise validation.invalid("text", _("is needed to edit before approving"))
    before = snapshot(memory)
    now = timezone.now()
    memory.reviewed_by, memory.reviewed_at = principal.audit_actor, now
    if decision == "reject":
        memory.review = Review.REJECTED
        memory.save()
        audit(memory, principal, MemoryRevision.Action.REJECTED, before=before, note=note)
        if memory.conflicts_with_id:
            old = Memory.objects.select_for_update().filter(pk=memory.conflicts_with_id).first()
            if old is not None:
                _settle(principal, old, f"memory:{memory.pk} rejected")
        events.changed(memory, "memory.memory.decided")
        return memory
    action = MemoryRevision.Action.APPROVED
    if text is not None and checks.clean_text(text) != memory.text:
        _retext(memory, checks.clean_text(text))
        action = MemoryRevision.Action.EDITED
    memory.review = Review.APPROVED
    if memory.assertion == Assertion.ASSERTED:
        memory.assertion = Assertion.CONFIRMED
    try:
        with transaction.atomic():
            memory.save()
    except IntegrityError:
        raise _duplicate_of(memory) from None
    audit(memory, principal, action, before=before, note=note)
    if memory.conflicts_with_id:
        _supersede(principal, memory.conflicts_with_id, memory)
    events.changed(memory, "memory.memory.decided")
    return memory


def _supersede(principal: Principal, old_id: int, newer: Memory) -> None:
    old = Memory.objects.select_for_update().filter(pk=old_id).first()
    if old is not None and old.assertion != Assertion.RETRACTED:
        _withdraw(principal, old, f"superseded by memory:{newer.pk}")


def _retext(memory: Memory, text: str) -> None:
    """New words for a memory: new dedup key, new vector (refused when it equals another memory)."""
    subject = checks.Subject(memory.subject_client, memory.subject_case, memory.subject_person)
    key = dedup.canonical_key(text, subject.key)
    other = _live(memory.holder, key)
    if other is not None and other.pk != memory.pk:
        raise _duplicate_of(other)
    memory.text, memory.canonical_key = text, key
    memory.subject_anchors = subjects.of_memory(memory).anchors
    memory.embedding, memory.embedding_model = similarity.embed(text, subject)


def _duplicate_of(other: Memory) -> DuplicateMemory:
    return DuplicateMemory(
        _("Memory %(id)s already says this.") % {"id": other.pk}, details={"existing_id": other.pk}
    )


def bulk_review(principal: Principal, data: MemoryBulkReview) -> dict:
    """The same decision for many memories, each on its own: one refusal does not undo the rest.
    Returns {"decided": [ids], "refused": [{"id", "code", "message"}]}."""
    decision = MemoryReview(decision=data.decision, note=data.note)
    decided, refused = [], []
    for memory_id in dict.fromkeys(data.memory_ids):
        try:
            decided.append(review(principal, memory_id, decision).pk)
        except DomainError as exc:
            refused.append({"id": memory_id, "code": exc.code, "message": exc.message})
    return {"decided": decided, "refused": refused}


@transaction.atomic
def unmerge(principal: Principal, memory_id: int, *, note: str = "") -> Memory:
    """Undo the check's merge of a memory into one saying the same (`checking._merge`): it is a
    memory of its own again, in the review state it had, with the sources it brought; the memory
    it was merged into gives them and its confirmations back. Refused when it was not merged
    (`memory_not_merged`) or when its words are remembered again meanwhile (`memory_duplicate`)."""
    note = validation.text(note, "note", max_length=NOTE_MAX)
    memory = _for_decision(principal, memory_id)
    if memory.duplicate_of_id is None or memory.assertion != Assertion.RETRACTED:
        raise NotMerged(_("Memory %(id)s is not merged into another one.") % {"id": memory.pk})
    kept = _locked().filter(pk=memory.duplicate_of_id).first()
    before = snapshot(memory)
    memory.duplicate_of = None
    memory.assertion = Assertion.CONFIRMED if memory.confirmations > 1 else Assertion.ASSERTED
    try:
        with transaction.atomic():
            memory.save(update_fields=["duplicate_of", "assertion", "updated_at"])
    except IntegrityError:
        raise _duplicate_of(_live(memory.holder, memory.canonical_key) or memory) from None
    MemorySource.objects.filter(moved_from=memory).update(memory=memory, moved_from=None)
    changed(
        memory,
        principal,
        MemoryRevision.Action.UNMERGED,
        "memory.memory.updated",
        before=before,
        note=note or (f"memory:{kept.pk}" if kept else ""),
    )
    if kept is not None:
        kept_before = snapshot(kept)
        kept.confirmations = max(1, kept.confirmations - memory.confirmations)
        if kept.assertion == Assertion.CONFIRMED and kept.confirmations <= 1 and not kept.reviewed_by_id:
            kept.assertion = Assertion.ASSERTED
        kept.save(update_fields=["confirmations", "assertion", "updated_at"])
        changed(
            kept,
            principal,
            MemoryRevision.Action.UPDATED,
            "memory.memory.updated",
            before=kept_before,
            note=f"merge of memory:{memory.pk} undone",
        )
    return memory


# --- changing, retracting, forgetting ---------------------------------------------------------
@transaction.atomic
def update(principal: Principal, memory_id: int, data: MemoryUpdate) -> Memory:
    """Change a memory: its holder (personal) or a reviewer (office, specialists). It keeps its
    review state; new words get a new vector and may not equal another memory. Only the fields
    sent change (a validity sent as null is cleared)."""
    memory = _for_decision(principal, memory_id)
    before = snapshot(memory)
    sent = data.model_fields_set
    if data.text is not None:
        new_text = checks.clean_text(data.text)
        if new_text != memory.text:
            _retext(memory, new_text)
    if data.kind is not None:
        memory.kind = data.kind
    if "valid_from" in sent or "valid_until" in sent:
        start = data.valid_from if "valid_from" in sent else memory.valid_from
        end = data.valid_until if "valid_until" in sent else memory.valid_until
        memory.valid_from, memory.valid_until = checks.validity(start, end)
    try:
        with transaction.atomic():
            memory.save()
    except IntegrityError:
        raise _duplicate_of(memory) from None
    changed(
        memory,
        principal,
        MemoryRevision.Action.UPDATED,
        "memory.memory.updated",
        before=before,
        note=data.note,
    )
    return memory


@transaction.atomic
def retract(principal: Principal, memory_id: int, *, note: str = "") -> Memory:
    """Withdraw a memory: it stays in the audit trail but never reaches a model again."""
    memory = _for_decision(principal, memory_id)
    if memory.assertion != Assertion.RETRACTED:
        _withdraw(principal, memory, validation.text(note, "note", max_length=NOTE_MAX))
    return memory


@transaction.atomic
def forget(principal: Principal, memory_id: int) -> int:
    """Delete one of the person's own personal memories for good, with its sources and audit
    trail (GDPR). Shared memory is not forgotten: it is rejected or retracted."""
    user = principal.user
    memory = Memory.objects.select_for_update().filter(pk=memory_id).first()
    if memory is None or user is None:
        raise MemoryNotFound(_("There is no memory with id %(id)s.") % {"id": memory_id})
    if memory.owner_id != user.pk:
        if memory.holder == holder_key():
            raise NotForgettable(_("Office memory is not deleted on request; reject or retract it instead."))
        raise MemoryNotFound(_("There is no memory with id %(id)s.") % {"id": memory_id})
    pk = memory.pk
    memory.delete()
    events.forgotten(user, pk)
    return pk


@transaction.atomic
def forget_all(principal: Principal) -> int:
    """Delete every personal memory of the person (GDPR erasure). Returns how many went."""
    user = principal.user
    if user is None:
        raise Forbidden(_("Only a person has personal memory."))
    ids = list(Memory.objects.filter(holder=holder_key(owner_id=user.pk)).values_list("id", flat=True))
    Memory.objects.filter(pk__in=ids).delete()
    if ids:
        events.forgotten(user, *ids)
    return len(ids)


# --- export -----------------------------------------------------------------------------------
def export_for(principal: Principal) -> dict:
    """Everything Clapilot holds about the person: their personal memory in every state with its
    sources and audit trail, and the office's approved memory about them or written by them."""
    user = principal.user
    if user is None:
        raise Forbidden(_("Only a person can export their memory."))
    reader = Reader.of(principal)
    personal = (
        with_relations(held(reader, "personal")).prefetch_related("sources", "revisions").order_by("id")
    )
    shared = with_relations(
        Memory.objects.filter(holder=holder_key(), review=Review.APPROVED).filter(subject_person=user)
        | Memory.objects.filter(holder=holder_key(), created_by=user)
    ).order_by("id")

    def full(memory: Memory) -> dict:
        return MemoryOut.record(memory) | {
            "sources": [MemorySourceOut.record(s) for s in memory.sources.all()],
            "history": [MemoryRevisionOut.record(r) for r in memory.revisions.all()],
        }

    return {
        "exported_at": timezone.now().isoformat(),
        "person": {"id": user.pk, "email": user.email, "name": user.get_full_name()},
        "personal": [full(m) for m in personal],
        "office": [MemoryOut.record(m) for m in shared.distinct()],
    }


def ensure_user(principal: Principal) -> None:
    if principal.user is None:
        raise InvalidInput(_("Only a person has a memory page."))
