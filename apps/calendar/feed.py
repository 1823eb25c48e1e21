"""The `.ics` subscription feed: per-person secret tokens (the only writer of `CalendarFeedToken`)
and the VCALENDAR text Outlook and Apple Calendar read.

Only a token's SHA-256 is stored, so a database dump does not open anyone's calendar. A feed
shows exactly what its owner may see; series are passed through as RRULE, not expanded.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

import icalendar
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.calendar.errors import FeedTokenNotFound
from apps.calendar.models import CalendarEvent, CalendarFeedToken
from apps.calendar.recurrence import zone
from apps.calendar.visibility import user_filter
from apps.core.errors import Forbidden

FEED_PAST_DAYS = 180
FEED_MAX_EVENTS = 5000
# A Vorfrist or due-day alarm rings at this hour of its day (the entry's time zone).
ALARM_HOUR = 8


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _require_user(principal: Principal):
    if principal.user is None:
        raise Forbidden(_("Only a person can subscribe to a calendar."))
    return principal.user


@transaction.atomic
def create_token(principal: Principal) -> tuple[CalendarFeedToken, str]:
    """A new secret for the principal's feed; earlier ones stop working (one live link)."""
    user = _require_user(principal)
    now = timezone.now()
    CalendarFeedToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=now)
    token = secrets.token_urlsafe(32)
    row = CalendarFeedToken.objects.create(user=user, token_hash=_digest(token), prefix=token[:8])
    return row, token


@transaction.atomic
def revoke_token(principal: Principal, token_id: int) -> CalendarFeedToken:
    user = _require_user(principal)
    row = CalendarFeedToken.objects.filter(user=user, pk=token_id).first()
    if row is None:
        raise FeedTokenNotFound(_("There is no such calendar subscription."))
    if row.revoked_at is None:
        row.revoked_at = timezone.now()
        row.save(update_fields=["revoked_at"])
    return row


def active_tokens(principal: Principal) -> list[CalendarFeedToken]:
    if principal.user is None:
        return []
    return list(CalendarFeedToken.objects.filter(user=principal.user, revoked_at__isnull=True))


def user_for_token(token: str):
    """The active person behind a live token, or None (unknown, revoked or disabled)."""
    if not token or len(token) > 100:
        return None
    row = (
        CalendarFeedToken.objects.select_related("user")
        .filter(token_hash=_digest(token), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if row is None:
        return None
    if row.last_used_at is None or timezone.now() - row.last_used_at > dt.timedelta(hours=1):
        CalendarFeedToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
    return row.user


def render_feed(user) -> bytes:
    """VCALENDAR with one VEVENT per entry (series with their RRULE) that `user` may see."""
    since = timezone.now() - dt.timedelta(days=FEED_PAST_DAYS)
    recent = Q(end__gte=since) | (~Q(rrule="") & Q(recurrence_end__gte=since))
    entries = (
        CalendarEvent.objects.filter(user_filter(user.pk))
        .filter(recent)
        .select_related("client")
        .prefetch_related("pre_deadlines")
        .order_by("start", "id")
    )
    entries = entries[:FEED_MAX_EVENTS]
    cal = icalendar.Calendar()
    cal.add("prodid", "-//Clapilot//Kalender//DE")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", f"Clapilot · {user.get_full_name()}")
    cal.add("x-wr-timezone", getattr(user, "time_zone", settings.TIME_ZONE))
    host = (settings.ALLOWED_HOSTS or ["clapilot"])[0].lstrip(".").replace("*", "clapilot")
    for entry in entries:
        vevent = _vevent(entry, host)
        for alarm in _alarms(entry, user):
            vevent.add_component(alarm)
        cal.add_component(vevent)
    cal.add_missing_timezones()
    return cal.to_ical()


def _vevent(entry: CalendarEvent, host: str) -> icalendar.Event:
    tz = zone(entry.time_zone)
    vevent = icalendar.Event()
    vevent.add("uid", f"calendar-event-{entry.pk}@{host}")
    vevent.add("dtstamp", entry.updated_at.astimezone(dt.UTC))
    vevent.add("last-modified", entry.updated_at.astimezone(dt.UTC))
    vevent.add("sequence", entry.version)
    title = entry.title
    if entry.is_deadline:
        title = _("Deadline: %(title)s") % {"title": entry.title}
    vevent.add("summary", title)
    if entry.all_day:
        vevent.add("dtstart", entry.start.astimezone(tz).date())
        vevent.add(
            "dtend",
            max(entry.end.astimezone(tz).date(), entry.start.astimezone(tz).date() + dt.timedelta(days=1)),
        )
    else:
        vevent.add("dtstart", entry.start.astimezone(tz))
        vevent.add("dtend", entry.end.astimezone(tz))
    description = entry.description
    if entry.is_deadline and entry.legal_basis:
        description = f"{_('Legal basis')}: {entry.legal_basis}\n{description}".strip()
    if entry.client_id:
        description = f"{_('Client')}: {entry.client.name}\n{description}".strip()
    if entry.conference_url:
        description = f"{description}\n{entry.conference_url}".strip()
        vevent.add("url", entry.conference_url)
    if description:
        vevent.add("description", description)
    if entry.location:
        vevent.add("location", entry.location)
    if entry.rrule:
        vevent.add("rrule", icalendar.vRecur.from_ical(entry.rrule))
    vevent.add("class", "PRIVATE" if entry.visibility == CalendarEvent.Visibility.PRIVATE else "PUBLIC")
    if entry.is_deadline:
        vevent.add("categories", [_("Deadline")])
        if entry.criticality in ("high", "critical"):
            vevent.add("priority", 1)
    return vevent


def _alarms(entry: CalendarEvent, user) -> list[icalendar.Alarm]:
    """VALARMs of one entry in `user`'s feed: the entry's own reminder (minutes before), and for
    an open Frist the person answers for (responsible or deputy) one on each Vorfrist's day and
    one on the due day, at ALARM_HOUR. Done or cancelled Fristen ring no more; others' Fristen
    ring for them, not in everybody's calendar."""
    alarms = []
    if entry.remind_minutes_before is not None and not (entry.is_deadline and entry.status != "open"):
        alarms.append(
            _alarm(dt.timedelta(minutes=-entry.remind_minutes_before), entry.title, f"reminder-{entry.pk}")
        )
    if entry.is_deadline and entry.status == "open" and user.pk in (entry.responsible_id, entry.deputy_id):
        tz = zone(entry.time_zone)
        for pre in entry.pre_deadlines.all():
            moment = dt.datetime.combine(pre.due_date, dt.time(ALARM_HOUR), tzinfo=tz)
            text = _("Vorfrist: %(title)s") % {"title": entry.title}
            alarms.append(_alarm(moment.astimezone(dt.UTC), text, f"pre-deadline-{pre.pk}"))
        due = entry.start.astimezone(tz).date()
        moment = dt.datetime.combine(due, dt.time(ALARM_HOUR), tzinfo=tz)
        text = _("Frist today: %(title)s") % {"title": entry.title}
        alarms.append(_alarm(moment.astimezone(dt.UTC), text, f"due-{entry.pk}"))
    return alarms


def _alarm(trigger: dt.timedelta | dt.datetime, text: str, uid: str) -> icalendar.Alarm:
    """A display alarm; `trigger` relative to the start or an absolute UTC moment."""
    alarm = icalendar.Alarm()
    alarm.add("uid", uid)
    alarm.add("action", "DISPLAY")
    alarm.add("description", text)
    alarm.add("trigger", trigger)
    return alarm
