"""The rows of the three reports, read through the Fristenkontrolle query (`fristen.deadlines_for`:
the calendar's visibility rules, the same figures as the Fristen page). A constant number of
queries per report, whatever the number of Fristen."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from apps.accounts.principal import Principal
from apps.calendar import fristen
from apps.calendar.models import CalendarEvent, DeadlineChange, PreDeadline
from apps.calendar.reports.render import Column, Report, date_de, moment_de
from apps.core.timezones import in_zone
from apps.deadlines.models import DeadlineRule

Status = CalendarEvent.Status
MAX_ROWS = 5_000
RELATED = ("client", "case", "responsible", "deputy", "done_by", "cancelled_by")


@dataclass(frozen=True)
class Scope:
    """Who asks and for what: a period (Fristenliste) or one day (the two daily sheets), and
    optionally one Zuständig."""

    principal: Principal
    since: dt.date
    until: dt.date
    responsible_id: int | None = None
    responsible_name: str = ""
    status: str | None = None

    def filters(self, **changes) -> fristen.FristenFilter:
        values = {
            "responsible_id": self.responsible_id,
            "status": self.status,
            "due_from": self.since,
            "due_to": self.until,
        }
        return fristen.FristenFilter(**{**values, **changes})

    def deadlines(self, **changes) -> QuerySet[CalendarEvent]:
        """The Fristen the principal sees through the Fristenkontrolle query, filtered by the
        scope with `changes` (`status=None` …: not by that)."""
        return fristen.deadlines_for(self.principal, self.filters(**changes))

    def described(self, period: str) -> str:
        parts = [period]
        if self.responsible_name:
            parts.append(_("Responsible: %(name)s") % {"name": self.responsible_name})
        if self.status:
            parts.append(_("Status: %(status)s") % {"status": Status(self.status).label})
        return " · ".join(parts)


def _loaded(qs: QuerySet[CalendarEvent]) -> QuerySet[CalendarEvent]:
    return qs.select_related(*RELATED).prefetch_related(
        Prefetch("pre_deadlines", queryset=PreDeadline.objects.order_by("due_date", "id"))
    )


def _person(user) -> str:
    return user.get_full_name() if user else ""


def _due(event: CalendarEvent, tz) -> str:
    local = in_zone(event.start, tz)
    timed = not event.all_day and local.time() != dt.time(0)
    return moment_de(local) if timed else date_de(local.date())


def _people(event: CalendarEvent) -> str:
    text = _person(event.responsible) or _("nobody")
    if event.deputy_id:
        text += "\n" + _("Deputy: %(name)s") % {"name": _person(event.deputy)}
    return text


def _client_case(event: CalendarEvent) -> str:
    return "\n".join(part for part in (event.client.name if event.client_id else "", _case(event)) if part)


def _case(event: CalendarEvent) -> str:
    return event.case.reference if event.case_id else ""


def _outcome(event: CalendarEvent, tz) -> str:
    """How a Frist ended: done (when, by whom, how), cancelled (why), else its status."""
    if event.status == Status.DONE:
        when = moment_de(in_zone(event.done_at, tz)) if event.done_at else ""
        return "\n".join(
            p for p in (_("done %(when)s") % {"when": when}, _person(event.done_by), event.done_how) if p
        )
    if event.status == Status.CANCELLED:
        return "\n".join(p for p in (_("cancelled"), _person(event.cancelled_by), event.cancel_reason) if p)
    return str(Status.OPEN.label)


def _rule_names(events: list[CalendarEvent]) -> dict[str, str]:
    codes = {e.rule_code for e in events if e.rule_code}
    return dict(DeadlineRule.objects.filter(code__in=codes).values_list("code", "name")) if codes else {}


def _kind(event: CalendarEvent, rules: dict[str, str]) -> str:
    lines = [event.title]
    if event.rule_code and rules.get(event.rule_code, event.title) != event.title:
        lines.append(rules[event.rule_code])
    if event.legal_basis:
        lines.append(event.legal_basis)
    return "\n".join(lines)


def _now(principal: Principal) -> dt.datetime:
    return timezone.now().astimezone(principal.time_zone)


def _due_on(scope: Scope, day: dt.date) -> list[CalendarEvent]:
    """Every visible Frist due on `day`, whatever its state, by Fristende."""
    return list(_loaded(scope.deadlines(status=None, due_from=day, due_to=day).order_by("start", "id")))


def _day_sheet(scope: Scope, slug: str, title: str, **fields) -> Report:
    """One of the two daily sheets of `scope.since` (a box per row to tick by hand): `slug` and
    `title` (with a `%(day)s`) get the day; `fields` are the sheet's own (columns, rows …)."""
    day = scope.since
    return Report(
        slug=f"{slug}_{day.isoformat()}",
        title=title % {"day": date_de(day)},
        scope=scope.described(_("Day: %(day)s") % {"day": date_de(day)}),
        generated=_now(scope.principal),
        check_column=True,
        **fields,
    )


# --- Fristenliste ---------------------------------------------------------------------------------
def fristenliste(scope: Scope) -> Report:
    """One row per Frist due in the period, by Fristende."""
    tz = scope.principal.time_zone
    qs = scope.deadlines().order_by("start", "id")
    events = list(_loaded(qs)[: MAX_ROWS + 1])
    truncated = len(events) > MAX_ROWS
    events = events[:MAX_ROWS]
    rules = _rule_names(events)
    rows = [
        [
            _due(e, tz),
            "\n".join(date_de(p.due_date) for p in e.pre_deadlines.all()),
            e.client.name if e.client_id else "",
            _case(e),
            _kind(e, rules),
            _people(e),
            _outcome(e, tz),
        ]
        for e in events
    ]
    period = _("%(since)s – %(until)s") % {"since": date_de(scope.since), "until": date_de(scope.until)}
    today_start = dt.datetime.combine(fristen.today_for(scope.principal), dt.time(0), tzinfo=tz)
    return Report(
        slug=f"fristenliste_{scope.since.isoformat()}_{scope.until.isoformat()}",
        title=_("Fristenliste %(period)s") % {"period": period},
        scope=scope.described(_("Period: %(period)s") % {"period": period}),
        columns=[
            Column(_("Fristende"), 24),
            Column(_("Vorfrist"), 20),
            Column(_("Client"), 40),
            Column(_("Case reference"), 26),
            Column(_("Kind of deadline / legal basis"), 62),
            Column(_("Responsible / deputy"), 40),
            Column(_("Done on / by / how"), 61),
        ],
        rows=rows,
        empty=_("No deadlines in the period %(period)s.") % {"period": period},
        generated=_now(scope.principal),
        summary=_("%(count)d deadlines") % {"count": len(rows)} if rows else "",
        marked={i for i, e in enumerate(events) if e.status == Status.OPEN and e.start < today_start},
        truncated=truncated,
    )


# --- Fristenkontrollblatt -------------------------------------------------------------------------
def kontrollblatt(scope: Scope) -> Report:
    """The morning check of `scope.since`: open Fristen overdue before it, every Frist due on it,
    every Vorfrist falling on it (of open Fristen). Each row gets a box to tick."""
    day, tz = scope.since, scope.principal.time_zone
    before = scope.deadlines(status=Status.OPEN, due_from=None, due_to=day - dt.timedelta(days=1))
    overdue = list(_loaded(before)[:MAX_ROWS])
    due = _due_on(scope, day)
    open_ids = scope.deadlines(status=Status.OPEN, due_from=None, due_to=None).values("id")
    pre = list(
        PreDeadline.objects.filter(due_date=day, event__in=open_ids)
        .select_related(*(f"event__{name}" for name in RELATED))
        .order_by("event__start", "event_id", "id")
    )
    rules = _rule_names([*overdue, *due, *(p.event for p in pre)])
    rows: list[list[str]] = []
    marked: set[int] = set()

    def add(kind: str, event: CalendarEvent, status: str, mark: bool = False) -> None:
        if mark:
            marked.add(len(rows))
        rows.append([kind, _due(event, tz), _kind(event, rules), _client_case(event), _people(event), status])

    for event in overdue:
        add(_("overdue"), event, str(Status.OPEN.label), mark=True)
    for event in due:
        add(pgettext("report row", "due"), event, _outcome(event, tz))
    for item in pre:
        add(_("Vorfrist") + (f"\n{item.note}" if item.note else ""), item.event, str(Status.OPEN.label))
    return _day_sheet(
        scope,
        "fristenkontrollblatt",
        _("Fristenkontrollblatt %(day)s"),
        columns=[
            Column(_("Kind"), 24),
            Column(_("Fristende"), 24),
            Column(_("Deadline / legal basis"), 68),
            Column(_("Client / case reference"), 50),
            Column(_("Responsible / deputy"), 42),
            Column(_("Status"), 49),
        ],
        rows=rows,
        empty=_("No deadlines, Vorfristen or overdue deadlines on %(day)s.") % {"day": date_de(day)},
        summary=_("Overdue: %(overdue)d · due: %(due)d · Vorfristen: %(pre)d")
        % {"overdue": len(overdue), "due": len(due), "pre": len(pre)},
        marked=marked,
    )


# --- Ausgangskontrolle ----------------------------------------------------------------------------
def _moved_away(scope: Scope, day: dt.date) -> list[DeadlineChange]:
    """The last move of each visible Frist whose due date was `day` and is now another day (the
    Fristenbuch records it with its reason)."""
    visible = scope.deadlines(status=None, due_from=None, due_to=None).values("id")
    stamp = day.isoformat()
    moves = (
        DeadlineChange.objects.filter(field="due", old__startswith=stamp, event__in=visible)
        .exclude(new__startswith=stamp)
        .select_related("actor", *(f"event__{name}" for name in RELATED))
        .order_by("event_id", "-at", "-id")
    )
    last: dict[int, DeadlineChange] = {}
    for move in moves[:MAX_ROWS]:
        last.setdefault(move.event_id, move)
    return sorted(last.values(), key=lambda m: (m.event.start, m.event_id))


def ausgangskontrolle(scope: Scope) -> Report:
    """The end-of-day check of `scope.since`: every Frist that was due that day is done, carried to
    another day with a reason, or cancelled; an open one is marked."""
    day, tz = scope.since, scope.principal.time_zone
    due = _due_on(scope, day)
    moved = [m for m in _moved_away(scope, day) if not any(e.pk == m.event_id for e in due)]
    rules = _rule_names([*due, *(m.event for m in moved)])
    rows: list[list[str]] = []
    marked: set[int] = set()
    counts = {"done": 0, "carried": 0, "cancelled": 0, "open": 0}
    for event in due:
        if event.status == Status.OPEN:
            marked.add(len(rows))
            counts["open"] += 1
            outcome = _("OPEN: neither done nor carried over")
        else:
            counts["done" if event.status == Status.DONE else "cancelled"] += 1
            outcome = _outcome(event, tz)
        rows.append([_due(event, tz), _kind(event, rules), _client_case(event), _people(event), outcome])
    for move in moved:
        counts["carried"] += 1
        event = move.event
        who = _person(move.actor) or move.actor_label
        outcome = _("carried over to %(day)s") % {"day": _due(event, tz)}
        outcome += "\n" + _("Reason: %(reason)s") % {"reason": move.reason_shown or "—"}
        if who:
            outcome += "\n" + who
        rows.append([date_de(day), _kind(event, rules), _client_case(event), _people(event), outcome])
    return _day_sheet(
        scope,
        "ausgangskontrolle",
        _("Ausgangskontrolle %(day)s"),
        columns=[
            Column(_("Fristende"), 24),
            Column(_("Deadline / legal basis"), 72),
            Column(_("Client / case reference"), 52),
            Column(_("Responsible / deputy"), 42),
            Column(_("Outcome"), 71),
        ],
        rows=rows,
        empty=_("No deadlines due on %(day)s.") % {"day": date_de(day)},
        summary=_(
            "Due: %(total)d · done: %(done)d · carried over: %(carried)d · cancelled: %(cancelled)d · open: %(open)d"
        )
        % {"total": len(rows), **counts},
        marked=marked,
    )
