"""Memory's review queues, hosted by `apps.review` (declared in `apps.py` under `review.queues`):
new memories waiting for review, and staged conflicts and corrections shown beside the approved
memory they contradict. Read and decided through `apps.memory.services`."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy

from apps.accounts.principal import Principal
from apps.core.db.narrowing import narrowed
from apps.core.inputs import build
from apps.core.review_queues import QueueFilter, QueueKind
from apps.memory import services as memory
from apps.memory.contracts import MemoryReview
from apps.memory.models import SourceKind
from apps.memory.visibility import can_review_shared

SUBJECTS = {
    "client": {"subject_client__isnull": False},
    "case": {"subject_case__isnull": False},
    "person": {"subject_person__isnull": False},
    "none": {"subject_client__isnull": True, "subject_case__isnull": True, "subject_person__isnull": True},
}


def filtered(qs: QuerySet, f: QueueFilter) -> QuerySet:
    if f.subject:
        qs = qs.filter(**SUBJECTS[f.subject])
    after, before = f.created_window()
    qs = narrowed(qs, created_at__gte=after, created_at__lt=before)
    return narrowed(qs, scope=f.scope, source_kind=f.source, text__icontains=f.q)


class PendingMemories(QueueKind):
    key = "memory"
    label = gettext_lazy("Memories")
    order = 10
    topic = "memory"
    decisions = ("approve", "reject", "edit")
    filters = ("q", "scope", "subject", "source", "age")
    sources = tuple(SourceKind.choices)
    template = "review/kinds/memory.html"
    log_template = "review/kinds/memory_log.html"
    conflicts = False

    def allowed(self, principal: Principal) -> bool:
        return can_review_shared(principal)

    def queryset(self, principal: Principal) -> QuerySet:
        return memory.reviewable(principal).filter(conflicts_with__isnull=not self.conflicts)

    def pending(self, principal, f: QueueFilter, *, limit, offset):
        qs = filtered(self.queryset(principal), f)
        return list(qs[offset : offset + limit]), qs.count()

    def count(self, principal) -> int:
        return self.queryset(principal).count()

    def decided(self, principal, f: QueueFilter, *, limit, offset):
        return memory.review_log(principal, limit=limit, offset=offset)

    def decide_one(self, principal, item_id, decision, text, note):
        text = text if decision == "edit" else None
        memory.review(principal, item_id, build(MemoryReview, decision=decision, text=text, note=note))


class MemoryConflicts(PendingMemories):
    """A new memory that contradicts (or corrects) an approved one: approving it retracts the old."""

    key = "conflict"
    label = gettext_lazy("Conflicts and corrections")
    order = 20
    conflicts = True


pending = PendingMemories()
conflicts = MemoryConflicts()
