"""The wire shapes of rules and computed deadlines (declared as `contracts.RuleOut` / `DeadlineOut`)."""

from __future__ import annotations

from apps.deadlines.compute import DeadlineResult
from apps.deadlines.models import DeadlineRule


def rule_record(rule: DeadlineRule) -> dict:
    return {
        "code": rule.code,
        "name": rule.name,
        "trigger_kind": rule.trigger_kind,
        "amount": rule.amount,
        "unit": rule.unit,
        "legal_basis": rule.legal_basis,
        "posting_fiction": rule.posting_fiction,
        "default_pre_deadline_days": rule.default_pre_deadline_days,
        "default_criticality": rule.default_criticality,
        "active": rule.active,
    }


def deadline_record(
    result: DeadlineResult, *, amount: int, unit: str, posted: bool, rule: DeadlineRule | None
) -> dict:
    return {
        **result.as_dict(),
        "amount": amount,
        "unit": unit,
        "posted": posted,
        "rule": rule_record(rule) if rule is not None else None,
    }
