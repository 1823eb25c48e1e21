"""Reading the rule catalog, computing deadlines from rules, and the admins' edits of the catalog.

`compute_deadline` is what the tool, the REST API, the forms and the document workflow call; it
writes nothing. `save_rule` / `set_office_state` are the only writers (admin only)."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.core import caches, validation
from apps.core.errors import Forbidden, InvalidInput
from apps.deadlines import compute as c
from apps.deadlines import office
from apps.deadlines.contracts import RuleSave
from apps.deadlines.errors import DeadlineDurationInvalid, DeadlineRuleNotFound
from apps.deadlines.models import DeadlineRule

MAX_PAGE = 200
# The active catalog, read at most every few seconds per process (computing a deadline from a
# rule then costs no query); an admin's save clears this process's copy at once.
CATALOG_TTL_SECONDS = 10.0
_catalog: tuple[float, dict[str, DeadlineRule]] | None = None


# --- reading the catalog -------------------------------------------------------------------------
def _active_rules() -> dict[str, DeadlineRule]:
    global _catalog
    now = time.monotonic()
    if _catalog is None or now - _catalog[0] >= CATALOG_TTL_SECONDS:
        _catalog = (now, {r.code: r for r in DeadlineRule.objects.filter(active=True)})
    return _catalog[1]


@caches.register
def forget_catalog() -> None:
    global _catalog
    _catalog = None


def rule_for(code: str | None) -> DeadlineRule:
    """The active rule with this code, or `deadline_rule_not_found`."""
    rules = _active_rules()
    rule = rules.get(str(code or "").strip().lower())
    if rule is None:  # the known codes help the model (or the client) pick the right one
        known = sorted(rules)
        message = _("There is no active deadline rule “%(code)s”; known rules: %(known)s.") % {
            "code": code,
            "known": ", ".join(known) or "-",
        }
        raise DeadlineRuleNotFound.field("rule", message, known_rules=known)
    return rule


def rule_choices(*, kept: str = "") -> list[tuple[str, str]]:
    """(code, label) of the active rules, for a form's select ("Einspruchsfrist (§ 355 AO)"); a
    Frist's own rule (`kept`) stays selectable after it was retired."""
    rules = sorted(_active_rules().values(), key=lambda r: (r.name, r.code))
    choices = [(r.code, str(r)) for r in rules]
    if kept and kept not in {code for code, _label in choices}:
        choices.append((kept, kept))
    return choices


def list_rules(
    *, query: str | None = None, include_inactive: bool = False, limit: int = 50, offset: int = 0
) -> tuple[list[DeadlineRule], int]:
    qs: QuerySet[DeadlineRule] = DeadlineRule.objects.all()
    if not include_inactive:
        qs = qs.filter(active=True)
    if query:
        words = validation.text(query, "query", max_length=200)
        qs = qs.filter(Q(code__icontains=words) | Q(name__icontains=words) | Q(legal_basis__icontains=words))
    limit, offset = validation.page(limit, offset, MAX_PAGE)
    return list(qs[offset : offset + limit]), qs.count()


# --- computing --------------------------------------------------------------------------------------
def compute_deadline(
    *,
    trigger_date: dt.date | None,
    rule: str | None = None,
    amount: int | None = None,
    unit: str | None = None,
    posted: bool = False,
    trigger_kind: str | None = None,
    state: str | None = None,
) -> tuple[c.DeadlineResult, DeadlineRule | None, int, str]:
    """(result, the rule or None, amount, unit). Writes nothing; bad input raises a coded error."""
    if isinstance(trigger_date, dt.date):  # the document workflow passes the model's date
        validation.in_range(trigger_date, "trigger_date")
    found = None
    if rule:
        found = rule_for(rule)
        if amount is not None or unit is not None:
            raise InvalidInput.field("amount", _("Give a rule or a duration (amount and unit), not both."))
        amount, unit = found.amount, found.unit
        trigger_kind = trigger_kind or found.trigger_kind
        if posted and not found.posting_fiction:
            raise InvalidInput.field(
                "posted",
                _("The posting fiction does not apply to “%(rule)s”: give the day of the %(event)s.")
                % {"rule": found.name, "event": c.TRIGGER_LABELS.get(trigger_kind, trigger_kind)},
            )
    elif amount is None or unit is None:
        raise DeadlineDurationInvalid.field("amount", _("Give a rule code or a duration (amount and unit)."))
    unit = str(getattr(unit, "value", unit))
    trigger_kind = str(getattr(trigger_kind, "value", trigger_kind or "bekanntgabe"))
    result = c.compute(
        trigger_date,
        amount,
        unit,
        posted=posted,
        trigger_kind=trigger_kind,
        state=state,
        name=found.name if found else "",
        legal_basis=found.legal_basis if found else "",
        fiction_basis=found.fiction_basis if found else "",
        shift_basis=found.shift_basis if found else "",
    )
    return result, found, amount, unit


def working_day(day: dt.date, state: str | None = None) -> dict[str, Any]:
    """The calendar forms' warning: is `day` a working day, and where would a Frist ending then end."""
    shifted, _original, reason = c.shift_to_working_day(validation.in_range(day, "date"), state)
    message = ""
    if reason:
        message = _("%(day)s is no working day (%(reason)s): a Frist ending then ends on %(shifted)s.") % {
            "day": c.fmt(day),
            "reason": reason,
            "shifted": c.fmt(shifted),
        }
    return {
        "date": day,
        "working_day": reason is None,
        "shifted_to": shifted,
        "reason": reason,
        "state": c.normalize_state(state),
        "message": message,
    }


# --- admin edits --------------------------------------------------------------------------------------
def _require_admin(principal: Principal, message: str) -> None:
    if principal.user is None or not principal.user.is_admin:
        raise Forbidden(message)


def save_rule(principal: Principal, data: RuleSave, rule_id: int | None = None) -> DeadlineRule:
    """Add a rule (rule_id None) or change one. Admins only; the duration is checked like a computation's."""
    _require_admin(principal, _("Only administrators can change the deadline rules."))
    code = data.code.lower()
    if not code.replace("_", "").replace("-", "").isalnum() or not code.isascii():
        raise validation.invalid("code", _("may contain only letters, digits, - and _"))
    c.check_duration(data.amount, data.unit)
    rule = DeadlineRule(pk=rule_id) if rule_id else DeadlineRule()
    if rule_id:
        existing = DeadlineRule.objects.filter(pk=rule_id).first()
        if existing is None:
            raise DeadlineRuleNotFound(_("There is no deadline rule with id %(id)s.") % {"id": rule_id})
        rule.created_at = existing.created_at
    for name in RuleSave.model_fields:
        setattr(rule, name, getattr(data, name))
    rule.code = code
    try:
        with transaction.atomic():
            rule.save()
    except IntegrityError:
        raise validation.invalid("code", _("is already used by another rule")) from None
    forget_catalog()
    return rule


def set_office_state(principal: Principal, state: str) -> str:
    """The office's Bundesland (its public holidays end deadlines). Admins only; one of the 16 codes."""
    _require_admin(principal, _("Only administrators can change the office's Bundesland."))
    from apps.core.services import set_setting

    code = c.normalize_state(state or "?")
    set_setting(office.SETTING_KEY, code)
    office.forget()
    return code
