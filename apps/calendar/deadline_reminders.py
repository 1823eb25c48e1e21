"""Reminders of the Fristenkontrolle, sent by a beat job (`apps.calendar.jobs.send_deadline_reminders`):

* a Vorfrist reminder on the Vorfrist's day, to the Frist's responsible person and deputy;
* a due-day reminder on the Frist's day, to both;
* an overdue escalation: the day after the Frist, to the responsible person (the deputy when
  nobody active is responsible); from `ESCALATE_AFTER_DAYS` days after it, to the admins.

Each notification carries an idempotency key (`apps.notifications.services.notify(key=…)`), so a
job delivered twice — or two workers running it at once — sends every reminder once. Only open
Fristen remind; a Frist marked done or cancelled stops reminding at once. "Today" is the office's
day (`settings.TIME_ZONE`); a Frist's due day is the day of its start in its own time zone.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from apps.calendar.models import CalendarEvent, PreDeadline
from apps.calendar.records import detail_url
from apps.notifications.services import notify, sent_keys

# The admins hear of an open Frist this many days after its due day (the responsible person the
# day after it).
ESCALATE_AFTER_DAYS = 2
# Overdue Fristen older than this are no longer escalated again by the job: they were when they
# became overdue, and they stay red on the Fristenkontrolle page.
OVERDUE_LOOKBACK_DAYS = 30
BATCH = 1000


@dataclass(frozen=True)
class Reminder:
    user: object
    key: str
    kind: str
    event: CalendarEvent
    due: dt.date
    pre_deadline: dt.date | None = None


def office_today(now: dt.datetime | None = None) -> dt.date:
    return timezone.localtime(now or timezone.now(), zoneinfo.ZoneInfo(settings.TIME_ZONE)).date()


def due_day(event: CalendarEvent) -> dt.date:
    try:
        tz = zoneinfo.ZoneInfo(event.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        tz = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    return event.start.astimezone(tz).date()


def send_deadline_reminders(now: dt.datetime | None = None) -> int:
    """Send whatever is due today and not yet sent; returns how many notifications went out."""
    today = office_today(now)
    reminders = [*_pre_deadline_reminders(today), *_due_and_overdue_reminders(today)]
    return _send(reminders)


# --- what is due ------------------------------------------------------------------------------
def _people(event: CalendarEvent) -> list:
    """The responsible person and the deputy, active ones only, each once."""
    people = []
    for person in (event.responsible, event.deputy):
        if person is not None and person.is_active and person not in people:
            people.append(person)
    return people


def _admins() -> list:
    User = get_user_model()
    return list(User.objects.filter(is_active=True).filter(Q(role=User.Role.ADMIN) | Q(is_superuser=True)))


def _open_deadlines():
    return CalendarEvent.objects.filter(
        kind=CalendarEvent.Kind.DEADLINE, status=CalendarEvent.Status.OPEN
    ).select_related("responsible", "deputy", "owner")


def start_window(first: dt.date, last: dt.date) -> Q:
    """Fristen starting between the two office days (a day of slack for other time zones)."""
    tz = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    begin = dt.datetime.combine(first - dt.timedelta(days=1), dt.time(0), tzinfo=tz)
    end = dt.datetime.combine(last + dt.timedelta(days=2), dt.time(0), tzinfo=tz)
    return Q(start__gte=begin, start__lt=end)


def _pre_deadline_reminders(today: dt.date) -> list[Reminder]:
    """Vorfristen of today (or missed earlier days, while the Frist itself is still ahead)."""
    rows = (
        PreDeadline.objects.filter(
            due_date__lte=today,
            due_date__gte=today - dt.timedelta(days=OVERDUE_LOOKBACK_DAYS),
            reminded_at__isnull=True,  # the keys keep it once; this keeps the job's work small
        )
        .filter(event__in=_open_deadlines().filter(start__gte=_start_of(today)))
        .select_related("event", "event__responsible", "event__deputy")
        .order_by("due_date", "id")[:BATCH]
    )
    return [
        Reminder(
            person,
            f"deadline.pre:{pre.pk}:{pre.due_date:%Y-%m-%d}",
            "deadline.pre_deadline",
            pre.event,
            due_day(pre.event),
            pre.due_date,
        )
        for pre in rows
        for person in _people(pre.event)
    ]


def _start_of(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=zoneinfo.ZoneInfo(settings.TIME_ZONE))


def _due_and_overdue_reminders(today: dt.date) -> list[Reminder]:
    first = today - dt.timedelta(days=OVERDUE_LOOKBACK_DAYS)
    events = list(_open_deadlines().filter(start_window(first, today)).order_by("start", "id")[:BATCH])
    admins: list | None = None
    reminders: list[Reminder] = []
    for event in events:
        due = due_day(event)
        if due > today or due < first:
            continue
        people = _people(event)
        if due == today:
            reminders += [
                Reminder(p, f"deadline.due:{event.pk}:{due:%Y-%m-%d}", "deadline.due", event, due)
                for p in people
            ]
            continue
        # Overdue: the responsible person first (the deputy stands in when nobody active is).
        first_stage = people[:1]
        late = (today - due).days
        if late >= ESCALATE_AFTER_DAYS or not first_stage:
            if admins is None:
                admins = _admins()
            for admin in _escalation_recipients(event, admins):
                reminders.append(
                    Reminder(
                        admin,
                        f"deadline.escalated:{event.pk}:{due:%Y-%m-%d}",
                        "deadline.escalated",
                        event,
                        due,
                    )
                )
        reminders += [
            Reminder(p, f"deadline.overdue:{event.pk}:{due:%Y-%m-%d}", "deadline.overdue", event, due)
            for p in first_stage
        ]
    return reminders


def _escalation_recipients(event: CalendarEvent, admins: list) -> list:
    """The admins (but not the responsible person, who heard of it the day before); a private
    Frist only reaches its owner (nobody else may see it)."""
    if event.visibility == CalendarEvent.Visibility.PRIVATE:
        owner = event.owner
        return [owner] if owner is not None and owner.is_active else []
    return [admin for admin in admins if admin.pk != event.responsible_id]


# --- sending ----------------------------------------------------------------------------------
def _send(reminders: list[Reminder]) -> int:
    """Skip what went out before (one query), then send the rest; a repeat that slipped past the
    check (a parallel run) is refused by notify()'s unique key."""
    done = sent_keys([(r.user.pk, r.key) for r in reminders])
    sent = 0
    for reminder in reminders:
        if (reminder.user.pk, reminder.key) in done:
            continue
        done.add((reminder.user.pk, reminder.key))
        with transaction.atomic():
            title, body = _texts(reminder)
            note = notify(
                reminder.user,
                kind=reminder.kind,
                title=title,
                body=body,
                url=detail_url(reminder.event.pk),
                data=_data(reminder),
                key=reminder.key,
            )
            if note is not None:
                sent += 1
    _stamp_pre_deadlines([r for r in reminders if r.pre_deadline is not None])
    return sent


def _stamp_pre_deadlines(reminders: list[Reminder]) -> None:
    """Mark the Vorfristen reminded (what the Fristen page shows); the keys keep it once."""
    ids = {int(r.key.split(":")[1]) for r in reminders}
    if ids:
        PreDeadline.objects.filter(pk__in=ids, reminded_at__isnull=True).update(reminded_at=timezone.now())


def _data(reminder: Reminder) -> dict:
    data = {"event_id": reminder.event.pk, "due": reminder.due.isoformat()}
    if reminder.pre_deadline is not None:
        data["pre_deadline"] = reminder.pre_deadline.isoformat()
    return data


def _texts(reminder: Reminder) -> tuple[str, str]:
    """Title and text in the recipient's language."""
    event, person = reminder.event, reminder.user
    with translation.override(getattr(person, "language", None) or settings.LANGUAGE_CODE):
        due = formats.date_format(reminder.due, "SHORT_DATE_FORMAT")
        names = {"title": event.title, "due": due}
        if reminder.kind == "deadline.pre_deadline":
            title = _("Vorfrist: %(title)s") % names
            body = _("The Frist ends on %(due)s; today is its Vorfrist.") % names
        elif reminder.kind == "deadline.due":
            title = _("Frist today: %(title)s") % names
            body = _("The Frist ends today (%(due)s). Mark it done once it is met.") % names
        elif reminder.kind == "deadline.overdue":
            title = _("Frist overdue: %(title)s") % names
            body = _("The Frist ended on %(due)s and is not marked done.") % names
        else:
            names["who"] = event.responsible.get_full_name() if event.responsible else _("nobody")
            title = _("Escalation: Frist overdue: %(title)s") % names
            body = _("The Frist ended on %(due)s and is still open (responsible: %(who)s).") % names
        if event.legal_basis:
            body = f"{body} ({event.legal_basis})"
    return title, body
