"""A Frist's lifecycle: who answers for it, its Vorfristen, done / cancelled, and the Fristenbuch.

The writing half of the Fristenkontrolle, called by `services` (create, update, move, delete) and
by the tools, API and pages (complete, cancel). Every change of due date, responsible person,
deputy, status or Vorfristen writes a `DeadlineChange` in the caller's transaction, so the history
and the change commit or fail together. A Frist is never deleted; it is cancelled with a reason.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.calendar import events, recurrence
from apps.calendar.contracts import DeadlineCancel, DeadlineComplete, DeadlineReopen
from apps.calendar.errors import DeadlineNotClosed, DeadlineNotOpen, DeadlineReasonRequired, NotADeadline
from apps.calendar.models import (
    NOTE_MAX,
    REASON_MAX,
    CalendarEvent,
    DeadlineChange,
    PreDeadline,
)
from apps.calendar.reads import get_event
from apps.calendar.reasons import CodedReason
from apps.calendar.records import EVENT_VERSION
from apps.core import validation
from apps.core.services import get_setting
from apps.deadlines import services as deadline_services
from apps.deadlines.compute import is_working_day
from apps.deadlines.errors import DeadlineRuleNotFound

Status = CalendarEvent.Status
DEFAULT_LEAD_SETTING = "calendar.default_vorfrist_days"
DEFAULT_LEAD_DAYS = 7
MAX_PRE_DEADLINES = 10
MAX_LEAD_DAYS = 366
# The fields the Fristenbuch follows (the keys of `snapshot`).
TRACKED = ("due", "responsible", "deputy", "status", "pre_deadlines")


# --- reading values -------------------------------------------------------------------------------
def staff_user(value: Any, field: str):
    """An active staff user (admins are staff too) by id, or None for none."""
    if value in (None, ""):
        return None
    try:
        return (
            get_user_model()
            .objects.only("id", "full_name", "email", "is_active")
            .get(pk=int(value), is_active=True)
        )
    except (get_user_model().DoesNotExist, TypeError, ValueError, OverflowError):
        raise validation.invalid(field, _("is not an active member of the office")) from None


def reason_text(value: Any, field: str = "reason", *, required: bool = False) -> str:
    text = validation.text(value or "", field, max_length=REASON_MAX)
    if required and not text.strip():
        raise DeadlineReasonRequired.field(field, _("a reason is required for the Fristenbuch"))
    return text.strip()


def pre_deadline_values(value: Any, due: dt.date) -> list[tuple[dt.date, str]]:
    """[(day, note)] from dicts {"due_date", "note"} or plain dates; none after the Frist itself."""
    if value in (None, ""):
        return []
    if not isinstance(value, (list, tuple)):
        raise validation.invalid("pre_deadlines", _("must be a list of Vorfristen"))
    if len(value) > MAX_PRE_DEADLINES:
        raise validation.invalid("pre_deadlines", _("at most %(n)d Vorfristen") % {"n": MAX_PRE_DEADLINES})
    found = []
    for item in value:
        raw, note = (item.get("due_date"), item.get("note", "")) if isinstance(item, dict) else (item, "")
        if hasattr(item, "due_date"):  # a pydantic input model
            raw, note = item.due_date, item.note
        day = validation.date(raw, "pre_deadlines")
        if day is None:
            raise validation.invalid("pre_deadlines", _("every Vorfrist needs a date"))
        if day > due:
            raise validation.invalid("pre_deadlines", _("a Vorfrist must not be after the Frist"))
        found.append((day, validation.text(note or "", "pre_deadlines", max_length=NOTE_MAX)))
    return sorted(set(found))


def default_lead_days(rule_code: str = "") -> int:
    """The Vorfrist lead time: the rule's own (deadlines catalog), else the instance default."""
    if rule_code:
        try:
            return int(deadline_services.rule_for(rule_code).default_pre_deadline_days) or default_lead_days()
        except DeadlineRuleNotFound:
            pass  # a rule retired since: the instance default
    try:
        days = int(get_setting(DEFAULT_LEAD_SETTING, DEFAULT_LEAD_DAYS))
    except (TypeError, ValueError):
        days = DEFAULT_LEAD_DAYS
    return days if 0 < days <= MAX_LEAD_DAYS else DEFAULT_LEAD_DAYS


def default_pre_deadline(due: dt.date, lead_days: int) -> dt.date:
    """`lead_days` before the due day, moved back to a working day (a Vorfrist is for working)."""
    day = due - dt.timedelta(days=lead_days)
    for _step in range(14):
        if is_working_day(day):
            break
        day -= dt.timedelta(days=1)
    return day


# --- the Fristenbuch ------------------------------------------------------------------------------
def due_day(event: CalendarEvent) -> dt.date:
    return event.start.astimezone(recurrence.zone(event.time_zone)).date()


def due_text(event: CalendarEvent) -> str:
    local = event.start.astimezone(recurrence.zone(event.time_zone))
    return (
        local.date().isoformat()
        if event.all_day or local.time() == dt.time(0)
        else local.strftime("%Y-%m-%d %H:%M")
    )


def _person_text(user) -> str:
    return "" if user is None else f"{user.full_name or user.email} (#{user.pk})"


def _pre_text(rows) -> str:
    return ", ".join(f"{day.isoformat()}{f' ({note})' if note else ''}" for day, note in rows)


def snapshot(event: CalendarEvent, pre_deadlines: list[tuple[dt.date, str]] | None = None) -> dict[str, str]:
    """The tracked fields as the Fristenbuch writes them."""
    if pre_deadlines is None:
        pre_deadlines = [(p.due_date, p.note) for p in event.pre_deadlines.all()] if event.pk else []
    return {
        "due": due_text(event),
        "responsible": _person_text(event.responsible),
        "deputy": _person_text(event.deputy),
        "status": event.status,
        "pre_deadlines": _pre_text(sorted(pre_deadlines)),
    }


def record(
    event: CalendarEvent, principal: Principal, field: str, old: str, new: str, reason: str = ""
) -> None:
    DeadlineChange.objects.create(
        event=event,
        at=timezone.now(),
        actor=principal.audit_actor,
        actor_label=principal.audit_label[:200],
        field=field,
        old=old,
        new=new,
        reason=reason,
    )


def record_changes(
    event: CalendarEvent,
    principal: Principal,
    before: dict[str, str],
    after: dict[str, str],
    reason: str,
    coded: CodedReason | None = None,
) -> None:
    rows = [
        DeadlineChange(
            event=event,
            at=timezone.now(),
            actor=principal.audit_actor,
            actor_label=principal.audit_label[:200],
            field=name,
            old=before[name],
            new=after[name],
            reason=reason,
            reason_code=coded.code if coded else "",
            reason_params=dict(coded.params) if coded else {},
        )
        for name in TRACKED
        if before[name] != after[name]
    ]
    DeadlineChange.objects.bulk_create(rows)


# --- applied by services.create_event / update_event ----------------------------------------------
def apply_people(event: CalendarEvent, values: dict[str, Any]) -> None:
    if "responsible_id" in values:
        event.responsible = staff_user(values["responsible_id"], "responsible_id")
    if "deputy_id" in values:
        event.deputy = staff_user(values["deputy_id"], "deputy_id")
    if event.responsible_id and event.responsible_id == event.deputy_id:
        raise validation.invalid("deputy_id", _("must be someone other than the responsible person"))


def set_pre_deadlines(event: CalendarEvent, rows: list[tuple[dt.date, str]]) -> None:
    event.pre_deadlines.all().delete()
    PreDeadline.objects.bulk_create([PreDeadline(event=event, due_date=day, note=note) for day, note in rows])


def initial_pre_deadlines(event: CalendarEvent, given: Any) -> list[tuple[dt.date, str]]:
    """A new Frist's Vorfristen: those given, else one at the default lead time; none for a Frist
    that is itself past. A short-notice Frist never silently goes without: when the usual Vorfrist
    (or every one given) lies in the past already, a Vorfrist today is added, its note saying why."""
    due = due_day(event)
    today = timezone.localdate()
    if given is not None:
        rows = pre_deadline_values(given, due)
        if not rows or due < today or any(day >= today for day, _note in rows):
            return rows  # none asked for, a past Frist, or one still ahead: as given
        return sorted({*rows, (today, short_notice_note(max(day for day, _note in rows)))})
    if due < today:
        return []
    usual = default_pre_deadline(due, default_lead_days(event.rule_code))
    if usual >= today:
        return [(usual, "")]
    return [(today, short_notice_note(usual))]


def short_notice_note(usual: dt.date) -> str:
    """The note of a same-day Vorfrist of a short-notice Frist (in the writer's language)."""
    text = _("Short notice: the usual Vorfrist (%(day)s) had already passed.")
    return (text % {"day": usual.strftime("%d.%m.%Y")})[:NOTE_MAX]


def moved_pre_deadlines(event: CalendarEvent, old_due: dt.date) -> list[tuple[dt.date, str]] | None:
    """When the due day moves, the Vorfristen keep their lead time (None: nothing to do)."""
    shift = due_day(event) - old_due
    if not shift:
        return None
    return [(p.due_date + shift, p.note) for p in event.pre_deadlines.all()]


# --- complete and cancel --------------------------------------------------------------------------
def _deadline(principal: Principal, event_id: int) -> CalendarEvent:
    event = get_event(principal, event_id, for_update=True)
    if not event.is_deadline:
        raise NotADeadline(_("Only a Frist can be completed, cancelled or reopened; this is an appointment."))
    return event


def _open_deadline(principal: Principal, event_id: int) -> CalendarEvent:
    event = _deadline(principal, event_id)
    if event.status != Status.OPEN:
        raise DeadlineNotOpen(
            _("This Frist is already %(status)s.") % {"status": event.get_status_display()},
            details={"status": event.status},
        )
    return event


def _finish(principal: Principal, event: CalendarEvent, before: dict[str, str], reason: str) -> CalendarEvent:
    event.version += 1
    event.save()
    record_changes(event, principal, before, snapshot(event), reason)
    event = get_event(principal, event.pk)
    events.event_changed(event, "calendar.event.updated")
    return event


@transaction.atomic
def complete_deadline(principal: Principal, event_id: int, data: DeadlineComplete) -> CalendarEvent:
    """Mark an open Frist done: by whom (the caller), when (now), how, optionally where (a link)."""
    how_text = data.how.strip()
    if not how_text:
        raise validation.invalid("how", _("say how the Frist was met, e.g. Einspruch eingelegt"))
    event = _open_deadline(principal, event_id)
    _check_version(principal, event, data.expected_version)
    before = snapshot(event)
    event.status = Status.DONE
    event.done_at, event.done_by = timezone.now(), principal.audit_actor
    event.done_how, event.done_link = how_text, data.link
    return _finish(principal, event, before, how_text)


@transaction.atomic
def cancel_deadline(principal: Principal, event_id: int, data: DeadlineCancel) -> CalendarEvent:
    """Strike an open Frist (it stays in the Fristenbuch): a reason is required."""
    reason_value = reason_text(data.reason, required=True)
    event = _open_deadline(principal, event_id)
    _check_version(principal, event, data.expected_version)
    before = snapshot(event)
    event.status = Status.CANCELLED
    event.cancelled_at, event.cancelled_by = timezone.now(), principal.audit_actor
    event.cancel_reason = reason_value
    return _finish(principal, event, before, reason_value)


@transaction.atomic
def reopen_deadline(principal: Principal, event_id: int, data: DeadlineReopen) -> CalendarEvent:
    """Open a done or cancelled Frist again: only with a reason, which the Fristenbuch records
    with the status change (who completed it, when and how stay in its history)."""
    reason_value = reason_text(data.reason, required=True)
    event = _deadline(principal, event_id)
    if event.status == Status.OPEN:
        raise DeadlineNotClosed(_("This Frist is open already."), details={"status": event.status})
    _check_version(principal, event, data.expected_version)
    before = snapshot(event)
    event.status = Status.OPEN
    event.done_at, event.done_by, event.done_how, event.done_link = None, None, "", ""
    event.cancelled_at, event.cancelled_by, event.cancel_reason = None, None, ""
    return _finish(principal, event, before, reason_value)


def _check_version(principal: Principal, event: CalendarEvent, expected_version: int | None) -> None:
    EVENT_VERSION.check(event, expected_version, lambda: get_event(principal, event.pk))


def history(event: CalendarEvent):
    return event.history.select_related("actor").order_by("at", "id")
