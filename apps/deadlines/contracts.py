"""The typed contract of deadline computation and the rule catalog: one input model per operation,
shared by the agent tool, the REST API and the forms; the output models every surface answers with."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from pydantic import Field

from apps.core.contracts import Date, Input, Output, PageInput, paged, query_field, wrapped
from apps.deadlines.models import CODE_MAX, LEGAL_BASIS_MAX, NAME_MAX, DeadlineRule

Unit = StrEnum("DeadlineUnit", {m.name: m.value for m in DeadlineRule.Unit})
TriggerKind = StrEnum("DeadlineTriggerKind", {m.name: m.value for m in DeadlineRule.TriggerKind})
Criticality = StrEnum("DeadlineCriticality", {m.name: m.value for m in DeadlineRule.Criticality})


# --- input ------------------------------------------------------------------------------------
class DeadlineCompute(Input):
    """Compute when a Frist ends. Give `rule` (a catalog code) or a duration (`amount` + `unit`).
    Bad values are answered with stable codes (deadline_rule_not_found, deadline_trigger_missing,
    deadline_duration_invalid, deadline_bundesland_unknown), never written anywhere."""

    trigger_date: Date | None = Field(
        default=None,
        description="Day of the triggering event (Bekanntgabe, Zustellung, Verkündung); with posted=true the day the letter was posted.",
    )
    rule: str | None = Field(
        default=None,
        max_length=CODE_MAX,
        description="Code of a deadline rule, e.g. einspruch_ao (list: GET /api/v1/deadlines/rules).",
    )
    amount: int | None = Field(
        default=None, description="Duration when no rule is given (1 to 10 years' worth)."
    )
    unit: Unit | None = Field(default=None, description="Unit of amount: days, weeks, months or years.")
    posted: bool = Field(
        default=False,
        description="trigger_date is the posting day: apply the Bekanntgabe fiction (4th day after posting since 2025, 3rd before; § 122 Abs. 2 Nr. 1 AO, § 41 Abs. 2 VwVfG).",
    )
    trigger_kind: TriggerKind | None = Field(
        default=None, description="The event; defaults to the rule's, else bekanntgabe."
    )
    state: str | None = Field(
        default=None,
        max_length=10,
        description="Bundesland code for public holidays (BY, NW, BE …); default: the office's.",
    )


class RuleSave(Input):
    """A catalog rule as an admin adds or changes it (the duration is checked like a computation's
    by the service: a rule must compute)."""

    code: str = Field(min_length=1, max_length=CODE_MAX)
    name: str = Field(min_length=1, max_length=NAME_MAX)
    trigger_kind: TriggerKind
    amount: int
    unit: Unit
    legal_basis: str = Field(min_length=1, max_length=LEGAL_BASIS_MAX)
    posting_fiction: bool = False
    fiction_basis: str = Field(default="", max_length=LEGAL_BASIS_MAX)
    shift_basis: str = Field(default="", max_length=LEGAL_BASIS_MAX)
    default_pre_deadline_days: int = Field(default=7, ge=0, le=365)
    default_criticality: Criticality = Criticality("high")
    active: bool = True


class RuleFilter(PageInput):
    query: str | None = query_field("Words in the rule's code, name or legal basis.")


class WorkingDayQuery(Input):
    date: Date = Field(description="The day a Frist would end on.")
    state: str | None = Field(
        default=None, max_length=10, description="Bundesland code; default: the office's."
    )


# --- output -----------------------------------------------------------------------------------
class RuleOut(Output):
    code: str
    name: str
    trigger_kind: TriggerKind
    amount: int
    unit: Unit
    legal_basis: str
    posting_fiction: bool
    default_pre_deadline_days: int
    default_criticality: Criticality
    active: bool


class StepOut(Output):
    label: str
    day: dt.date
    legal_basis: str
    shifted_from: dt.date | None = Field(
        description="The day this step moved from (weekend or holiday), or null."
    )
    shift_reason: str | None


class DeadlineOut(Output):
    """A computed Frist: its end, the chain of steps and the explanation for the Fristenbuch."""

    end: dt.date
    trigger: dt.date
    start: dt.date = Field(
        description="The day the Frist runs from (the Bekanntgabe after the posting fiction)."
    )
    unshifted_end: dt.date
    shifted_from: dt.date | None = Field(
        description="The end before it moved off a weekend or holiday, or null."
    )
    shift_reason: str | None
    legal_basis: str
    state: str
    explanation: str
    steps: list[StepOut]
    amount: int
    unit: Unit
    posted: bool
    rule: RuleOut | None


class WorkingDayOut(Output):
    date: dt.date
    working_day: bool
    shifted_to: dt.date = Field(description="The next working day (the date itself when it is one).")
    reason: str | None = Field(
        description='Why it is no working day ("Sonntag", "Feiertag (Karfreitag)"), or null.'
    )
    state: str
    message: str = Field(description="The warning to show next to the date field, or empty.")


DeadlineResult = wrapped(DeadlineOut, "deadline", name="DeadlineComputeResult")
RulePage = paged(RuleOut, "rules", name="DeadlineRulePage")
