"""The wire shapes of rules and computed deadlines (declared as `contracts.RuleOut` / `DeadlineOut`)."""

from __future__ import annotations

from apps.core.records import attrs
from apps.deadlines.compute import DeadlineResult
from apps.deadlines.models import DeadlineRule


def rule_record(rule: DeadlineRule) -> dict:
    return {
        **attrs(rule, "code", "name", "trigger_kind", "amount", "unit", "legal_basis", "posting_fiction"),
        **attrs(rule, "default_pre_deadline_days", "default_criticality", "active"),  # for its Fristen
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
