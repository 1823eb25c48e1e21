"""German deadline computation: one pure module used by forms, tools, REST and the document workflow.

From a triggering event (Bekanntgabe, Zustellung, Verkündung, or a posting date with the
Bekanntgabe fiction) and a duration:

* the event day is not counted (§ 187 Abs. 1 BGB): a days deadline ends n days later;
* a weeks deadline ends on the weekday named like the event day (§ 188 Abs. 2 BGB);
* a months/years deadline ends on the day with the event day's number, or on the month's last
  day when that day does not exist (§ 188 Abs. 2, 3 BGB);
* an end on a Saturday, Sunday or public holiday moves to the next working day (§ 193 BGB,
  § 108 Abs. 3 AO, § 222 Abs. 2 ZPO);
* a posted administrative act counts as notified on the fourth day after posting (third day when
  posted before 2025; § 122 Abs. 2 Nr. 1 AO, § 41 Abs. 2 VwVfG), moved to the next working day
  when that is a weekend day or holiday.

Public holidays come from the `holidays` package per Bundesland, cached per (Land, year), so a
computation is a few dictionary look-ups. The explanation is German legal text on purpose: it is
what goes into the Fristenbuch, whatever the reader's UI language.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Literal

import holidays
from django.utils.translation import gettext as _

from apps.deadlines.errors import DeadlineDurationInvalid, DeadlineTriggerMissing
from apps.deadlines.office import normalize_state

Unit = Literal["days", "weeks", "months", "years"]
TriggerKind = Literal["bekanntgabe", "zustellung", "verkuendung"]

UNITS: tuple[str, ...] = ("days", "weeks", "months", "years")
TRIGGER_KINDS: tuple[str, ...] = ("bekanntgabe", "zustellung", "verkuendung")

WEEKDAYS = ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So")
TRIGGER_LABELS = {"bekanntgabe": "Bekanntgabe", "zustellung": "Zustellung", "verkuendung": "Verkündung"}
UNIT_LABELS = {
    "days": ("Tag", "Tage"),
    "weeks": ("Woche", "Wochen"),
    "months": ("Monat", "Monate"),
    "years": ("Jahr", "Jahre"),
}

# The posting fiction moved from the third to the fourth day for acts posted from 1 January 2025
# (Postrechtsmodernisierungsgesetz).
FOURTH_DAY_SINCE = date(2025, 1, 1)
MAX_YEARS = 10


@dataclass(frozen=True)
class Step:
    """One link of the chain: what happened on which day, and the norm that says so."""

    label: str
    day: date
    legal_basis: str = ""
    shifted_from: date | None = None
    shift_reason: str | None = None


@dataclass(frozen=True)
class DeadlineResult:
    end: date
    trigger: date
    start: date  # the day the deadline starts to run from (Bekanntgabe after the fiction)
    unshifted_end: date
    shifted_from: date | None
    shift_reason: str | None
    legal_basis: str
    state: str
    steps: tuple[Step, ...] = field(default_factory=tuple)
    explanation: str = ""

    def as_dict(self) -> dict:
        return {
            "end": self.end.isoformat(),
            "trigger": self.trigger.isoformat(),
            "start": self.start.isoformat(),
            "unshifted_end": self.unshifted_end.isoformat(),
            "shifted_from": self.shifted_from.isoformat() if self.shifted_from else None,
            "shift_reason": self.shift_reason,
            "legal_basis": self.legal_basis,
            "state": self.state,
            "explanation": self.explanation,
            "steps": [
                {
                    "label": s.label,
                    "day": s.day.isoformat(),
                    "legal_basis": s.legal_basis,
                    "shifted_from": s.shifted_from.isoformat() if s.shifted_from else None,
                    "shift_reason": s.shift_reason,
                }
                for s in self.steps
            ],
        }


# --- Bundesland and holidays -------------------------------------------------------------------


@lru_cache(maxsize=512)
def holidays_of(state: str, year: int) -> dict[date, str]:
    """Public holidays of one Land in one year, German names (cached: the package is slow to build)."""
    return dict(holidays.Germany(subdiv=state, years=year, language="de").items())


def holiday_name(day: date, state: str | None = None) -> str | None:
    return holidays_of(normalize_state(state), day.year).get(day)


def _non_working_reason(day: date, state: str) -> str | None:
    weekday = day.weekday()
    if weekday == 5:
        return "Samstag"
    if weekday == 6:
        return "Sonntag"
    name = holidays_of(state, day.year).get(day)
    return f"Feiertag ({name})" if name else None


def is_working_day(day: date, state: str | None = None) -> bool:
    """Not a Saturday, Sunday or public holiday of the Land (the office's when `state` is None)."""
    return _non_working_reason(day, normalize_state(state)) is None


def shift_to_working_day(day: date, state: str | None = None) -> tuple[date, date, str | None]:
    """(the working day a deadline ending on `day` really ends on, `day`, why it moved or None).

    The reason names the first non-working day met ("Samstag", "Sonntag", "Feiertag (Karfreitag)");
    the forms show it as the weekend/holiday warning."""
    code = normalize_state(state)
    reason = _non_working_reason(day, code)
    if reason is None:
        return day, day, None
    moved = day + timedelta(days=1)
    while _non_working_reason(moved, code) is not None:
        moved += timedelta(days=1)
    return moved, day, reason


# --- date arithmetic (§§ 187, 188 BGB) ------------------------------------------------------------


def add_months(day: date, months: int) -> date:
    """Same day number `months` later, or that month's last day (§ 188 Abs. 3 BGB)."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def raw_end(trigger: date, amount: int, unit: str) -> date:
    """The end before any weekend/holiday shift; the trigger day itself is not counted (§ 187 Abs. 1 BGB)."""
    if unit == "days":
        return trigger + timedelta(days=amount)
    if unit == "weeks":
        return trigger + timedelta(weeks=amount)
    if unit == "months":
        return add_months(trigger, amount)
    if unit == "years":
        return add_months(trigger, 12 * amount)
    raise DeadlineDurationInvalid.field("unit", _("Unit must be days, weeks, months or years."))


def check_duration(amount: int | None, unit: str | None) -> None:
    if unit not in UNITS:
        raise DeadlineDurationInvalid.field("unit", _("Unit must be days, weeks, months or years."))
    limit = {"days": 3653, "weeks": 522, "months": 12 * MAX_YEARS, "years": MAX_YEARS}[unit]
    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1 or amount > limit:
        raise DeadlineDurationInvalid.field(
            "amount",
            _("A deadline runs at least one day and at most ten years (here: 1 to %(limit)s).")
            % {"limit": limit},
        )


# --- legal bases ------------------------------------------------------------------------------------


def _is_tax(legal_basis: str) -> bool:
    return (
        " AO" in f" {legal_basis}".replace("(", " ").replace(";", " ").replace(",", " ")
        and "VwGO" not in legal_basis
    )


def shift_basis_for(legal_basis: str) -> str:
    """The norm that moves an end off a weekend or holiday, for the procedure the rule belongs to."""
    text = f" {legal_basis} "
    if _is_tax(legal_basis):
        return "§ 108 Abs. 3 AO"
    if any(f" {code}" in text for code in ("ZPO", "FGO", "VwGO", "ArbGG", "StPO", "FamFG")):
        return "§ 222 Abs. 2 ZPO"
    if " SGG" in text:
        return "§ 64 Abs. 3 SGG"
    return "§ 193 BGB"


def fiction_basis_for(legal_basis: str, trigger_kind: str = "bekanntgabe") -> str:
    """The norm of the posting fiction: § 122 Abs. 2 Nr. 1 AO for tax acts, § 41 Abs. 2 VwVfG
    otherwise, § 4 Abs. 2 VwZG for a Zustellung by registered mail."""
    if trigger_kind == "zustellung":
        return "§ 122 Abs. 5 AO i. V. m. § 4 Abs. 2 VwZG" if _is_tax(legal_basis) else "§ 4 Abs. 2 VwZG"
    return "§ 122 Abs. 2 Nr. 1 AO" if _is_tax(legal_basis) else "§ 41 Abs. 2 VwVfG"


def fiction_shift_basis_for(fiction_basis: str) -> str:
    """The norm that moves a fictional Bekanntgabe off a weekend or holiday, by the fiction's law."""
    if _is_tax(fiction_basis):
        return "§ 108 Abs. 3 AO"
    if "SGB X" in fiction_basis:
        return "§ 26 Abs. 3 SGB X"
    return "§ 31 Abs. 3 VwVfG"


def posting_fiction_days(posted: date) -> int:
    return 4 if posted >= FOURTH_DAY_SINCE else 3


# --- the computation -------------------------------------------------------------------------------


def fmt(day: date) -> str:
    return f"{WEEKDAYS[day.weekday()]} {day:%d.%m.%Y}"


def fmt_short(day: date) -> str:
    return f"{WEEKDAYS[day.weekday()]} {day:%d.%m.}"


def duration_label(amount: int, unit: str) -> str:
    singular, plural = UNIT_LABELS[unit]
    return f"{amount} {singular if amount == 1 else plural}"


def compute(
    trigger: date | None,
    amount: int | None,
    unit: str | None,
    *,
    posted: bool = False,
    trigger_kind: str = "bekanntgabe",
    state: str | None = None,
    name: str = "",
    legal_basis: str = "",
    fiction_basis: str = "",
    shift_basis: str = "",
) -> DeadlineResult:
    """The end of a deadline of `amount` `unit` from `trigger` (the event's day, or the posting
    day when `posted`), with the chain of steps and a German explanation.

    `legal_basis` is the rule's norm (e.g. "§ 355 AO"): it decides which norms the fiction and the
    weekend shift cite unless `fiction_basis` / `shift_basis` name them. Raises a `DomainError` with a stable code on bad input; pure otherwise."""
    if trigger is None:
        raise DeadlineTriggerMissing.field("trigger_date", _("The date of the triggering event is missing."))
    check_duration(amount, unit)
    if trigger_kind not in TRIGGER_KINDS:
        trigger_kind = "bekanntgabe"
    code = normalize_state(state)
    steps: list[Step] = []
    event_label = TRIGGER_LABELS[trigger_kind]

    start = trigger
    if posted:
        steps.append(Step("zur Post", trigger))
        fictional = trigger + timedelta(days=posting_fiction_days(trigger))
        start, original, reason = shift_to_working_day(fictional, code)
        basis = fiction_basis or fiction_basis_for(legal_basis, trigger_kind)
        if reason:
            basis = f"{basis}, {fiction_shift_basis_for(basis)}"
        steps.append(Step(event_label, start, basis, original if reason else None, reason))
    else:
        steps.append(Step(event_label, trigger))

    unshifted = raw_end(start, amount, unit)
    if unshifted.year > 9998:
        raise DeadlineDurationInvalid.field("amount", _("The deadline would end after the year 9998."))
    end, original, reason = shift_to_working_day(unshifted, code)
    frist = name or f"Frist ({duration_label(amount, unit)})"
    shift = (shift_basis or shift_basis_for(legal_basis)) if reason else ""
    steps.append(Step(f"{frist} endet", end, legal_basis, original if reason else None, reason))

    return DeadlineResult(
        end=end,
        trigger=trigger,
        start=start,
        unshifted_end=unshifted,
        shifted_from=unshifted if reason else None,
        shift_reason=reason,
        legal_basis="; ".join(b for b in (legal_basis, shift) if b),
        state=code,
        steps=tuple(steps),
        explanation=explain(steps, shift_basis=shift),
    )


def explain(steps: list[Step], *, shift_basis: str = "") -> str:
    """ "zur Post am Do 29.01.2026 → Bekanntgabe Mo 02.02.2026 (§ 122 Abs. 2 Nr. 1 AO) → Einspruchsfrist
    endet Mo 02.03.2026 (§ 355 AO)"; a shift adds "(Sa 28.02. → Mo 02.03., § 108 Abs. 3 AO: Samstag)"."""
    parts = []
    last = len(steps) - 1
    for index, step in enumerate(steps):
        if step.label == "zur Post":
            parts.append(f"zur Post am {fmt(step.day)}")
            continue
        notes = []
        if step.shifted_from is not None and index != last:
            # the fiction's shift: the norms are already in the step's legal basis
            notes.append(f"{fmt_short(step.shifted_from)} → {fmt_short(step.day)}: {step.shift_reason}")
            notes.append(step.legal_basis)
        else:
            if step.legal_basis:
                notes.append(step.legal_basis)
            if step.shifted_from is not None:
                notes.append(
                    f"{fmt_short(step.shifted_from)} → {fmt_short(step.day)}, {shift_basis}: {step.shift_reason}"
                )
        text = f"{step.label} {fmt(step.day)}"
        parts.append(f"{text} ({'; '.join(notes)})" if notes else text)
    return " → ".join(parts)
