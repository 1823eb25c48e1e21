"""The wire shapes of a memory (declared as `contracts.MemoryOut` / `MemoryDetailOut`), built from
rows loaded with `with_relations` so a list costs the same queries whatever its length."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.accounts.contracts import person_ref
from apps.memory.models import Memory, MemoryRevision, MemorySource

RELATIONS = ("subject_client", "subject_case", "subject_person", "created_by", "reviewed_by")


def with_relations(qs: QuerySet[Memory]) -> QuerySet[Memory]:
    return qs.select_related(*RELATIONS).defer("embedding")


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def subject_record(memory: Memory) -> dict:
    client, case = memory.subject_client, memory.subject_case
    return {
        "client": {"id": client.pk, "name": client.name} if client else None,
        "case": {"id": case.pk, "reference": case.reference} if case else None,
        "person": person_ref(memory.subject_person),
    }


def memory_record(memory: Memory) -> dict:
    return {
        "id": memory.pk,
        "ref": memory.ref,
        "text": memory.text,
        "kind": memory.kind,
        "scope": memory.scope,
        "specialist": memory.specialist or None,
        "subject": subject_record(memory),
        "source": {"kind": memory.source_kind, "ref": memory.source_ref},
        "assertion": memory.assertion,
        "review": memory.review,
        "valid_from": _iso(memory.valid_from),
        "valid_until": _iso(memory.valid_until),
        "confirmations": memory.confirmations,
        "conflicts_with": memory.conflicts_with_id,
        "created_by": person_ref(memory.created_by),
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
    }


def source_record(source: MemorySource) -> dict:
    return {
        "kind": source.kind,
        "ref": source.ref,
        "quote": source.quote,
        "added_at": source.created_at.isoformat(),
    }


def revision_record(revision: MemoryRevision) -> dict:
    return {
        "action": revision.action,
        "by": revision.actor_label,
        "at": revision.created_at.isoformat(),
        "before": revision.before,
        "after": revision.after,
        "note": revision.note,
    }


def snapshot(memory: Memory) -> dict:
    """What an audit revision keeps of the memory before and after a change."""
    return {
        "text": memory.text,
        "kind": memory.kind,
        "assertion": memory.assertion,
        "review": memory.review,
        "valid_from": _iso(memory.valid_from),
        "valid_until": _iso(memory.valid_until),
    }
