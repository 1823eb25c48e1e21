"""Dict builders producing the shapes of `contracts.py` (tools, REST, pages, live events)."""

from __future__ import annotations

from apps.accounts.contracts import person_ref
from apps.core.records import attrs
from apps.learning.models import LearningDecision, LearningEvidence, LearningObject


def object_record(obj: LearningObject) -> dict:
    return {
        "id": obj.ref,
        "object_id": obj.pk,
        **attrs(obj, "kind", "text", "subject", "status", "staged_reason"),
        "conflicts_with": obj.conflicts_with_id,
        **attrs(obj, "confidence", "confirmations", "checked_at", "created_at", "updated_at"),
    }


def evidence_record(evidence: LearningEvidence) -> dict:
    return attrs(evidence, "run_id", "quote", "created_at")


def object_detail(obj: LearningObject, evidence: list[LearningEvidence]) -> dict:
    return object_record(obj) | {"evidence": [evidence_record(e) for e in evidence]}


def decision_record(decision: LearningDecision) -> dict:
    return {
        "id": decision.pk,
        "object_id": decision.learning_object_id,
        **attrs(decision, "decision", "actor"),
        "decided_by": person_ref(decision.decided_by),
        **attrs(decision, "reason", "note", "confidence"),
        "model": decision.model_label,
        **attrs(decision, "before", "after"),
        "reverted_by": person_ref(decision.reverted_by),
        **attrs(decision, "reverted_at", "created_at"),
    }


def snapshot(obj: LearningObject) -> dict:
    """What a decision's before/after keeps: enough to put the object back."""
    return attrs(obj, "status", "text", "staged_reason")
