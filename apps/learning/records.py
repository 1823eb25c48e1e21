"""Dict builders producing the shapes of `contracts.py` (tools, REST, pages, live events)."""

from __future__ import annotations

from apps.accounts.contracts import person_ref
from apps.learning.models import LearningDecision, LearningEvidence, LearningObject


def object_record(obj: LearningObject) -> dict:
    return {
        "id": obj.ref,
        "object_id": obj.pk,
        "kind": obj.kind,
        "text": obj.text,
        "subject": obj.subject,
        "status": obj.status,
        "staged_reason": obj.staged_reason,
        "conflicts_with": obj.conflicts_with_id,
        "confidence": obj.confidence,
        "confirmations": obj.confirmations,
        "checked_at": obj.checked_at,
        "created_at": obj.created_at,
        "updated_at": obj.updated_at,
    }


def evidence_record(evidence: LearningEvidence) -> dict:
    return {"run_id": evidence.run_id, "quote": evidence.quote, "created_at": evidence.created_at}


def object_detail(obj: LearningObject, evidence: list[LearningEvidence]) -> dict:
    return object_record(obj) | {"evidence": [evidence_record(e) for e in evidence]}


def decision_record(decision: LearningDecision) -> dict:
    return {
        "id": decision.pk,
        "object_id": decision.learning_object_id,
        "decision": decision.decision,
        "actor": decision.actor,
        "decided_by": person_ref(decision.decided_by),
        "reason": decision.reason,
        "note": decision.note,
        "confidence": decision.confidence,
        "model": decision.model_label,
        "before": decision.before,
        "after": decision.after,
        "reverted_by": person_ref(decision.reverted_by),
        "reverted_at": decision.reverted_at,
        "created_at": decision.created_at,
    }


def snapshot(obj: LearningObject) -> dict:
    """What a decision's before/after keeps: enough to put the object back."""
    return {"status": obj.status, "text": obj.text, "staged_reason": obj.staged_reason}
