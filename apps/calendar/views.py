"""Server-rendered Kalender pages: month, week, agenda, Fristen, entry editor, the drag-to-move
endpoint and feed-token management (the public `.ics` feed itself is `api.FeedView`). Every write
goes through `apps.calendar.services` (feed tokens: `apps.calendar.feed`); views only parse input
and render."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import cast

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.principal import Principal
from apps.calendar import feed, fristen_views, lifecycle, services
from apps.calendar.contracts import CalendarPageQuery, EventCreate, EventMove, EventUpdate
from apps.calendar.forms import LOCAL_FORMAT, EventEditForm, EventForm
from apps.calendar.records import Occurrence, countdown_days, detail_url, event_record, is_critical_soon
from apps.clients.services import client_choices
from apps.core.errors import DomainError
from apps.core.origin import Origin
from apps.core.surfaces import web
from apps.core.surfaces.web import domain_errors, reported

AGENDA_DAYS = 30
CHIPS_PER_DAY = 4  # the month grid shows this many per day and "+N more" (to the week view)
FEED_URL_SESSION_KEY = "calendar_feed_url"


def _people():
    return get_user_model().objects.filter(is_active=True).order_by("full_name", "email")


def _today(principal: Principal) -> dt.date:
    return timezone.now().astimezone(principal.time_zone).date()


def _page_query(request) -> CalendarPageQuery:
    """The page's query string through `CalendarPageQuery`: a day outside the date bound (a grid
    around year 9999 would overflow) or a bad value is dropped, and the page says why."""
    return web.query(request, CalendarPageQuery)


def _midnight(day: dt.date, principal: Principal) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=principal.time_zone)


def _days(principal: Principal, first: dt.date, count: int, query: str | None = None) -> list[dict]:
    """`count` days from `first`, each with the occurrences touching it (in the viewer's zone).
    The layout works on narrow (id, start, end) rows, then loads the entries in one query."""
    rows = services.occurrence_rows(
        principal,
        _midnight(first, principal),
        _midnight(first + dt.timedelta(days=count), principal),
        query=query,
    )
    by_day: dict[dt.date, list[tuple[int, dt.datetime, dt.datetime]]] = defaultdict(list)
    last = first + dt.timedelta(days=count - 1)
    tz = principal.time_zone
    for row in rows:
        _pk, start, end = row
        local_end = end.astimezone(tz)
        day = max(start.astimezone(tz).date(), first)
        end_day = local_end.date()
        if end > start and local_end.time() == dt.time(0):
            end_day -= dt.timedelta(days=1)  # ends at midnight: not on that day
        while day <= min(end_day, last):
            by_day[day].append(row)
            day += dt.timedelta(days=1)
    events = services.grid_events(principal, {pk for occs in by_day.values() for pk, _s, _e in occs})
    today = _today(principal)
    days = []
    for d in (first + dt.timedelta(days=i) for i in range(count)):
        iso = d.isoformat()
        items = [
            _item(Occurrence(events[pk], s, e), tz, today, iso)
            for pk, s, e in by_day.get(d, [])
            if pk in events
        ]
        days.append({"date": d, "iso": iso, "items": items, "is_today": d == today})
    return days


def _item(occ: Occurrence, tz: dt.tzinfo, today: dt.date, day_iso: str) -> dict:
    """What a chip or agenda row renders, prepared once here: a month grid draws a few hundred
    chips, and every template lookup or filter there costs more than this Python."""
    event = occ.event
    days = countdown_days(event, occ.start, today) if event.is_deadline else None
    critical = is_critical_soon(event, days) if days is not None else False
    local_start = occ.start.astimezone(tz)
    classes = f"cal-chip kind-{event.kind}"
    if critical:
        classes += " is-critical"
    if event.visibility == "private":
        classes += " is-private"
    state = f"is-{event.status}" if event.is_deadline and event.status != "open" else ""
    if state:  # a done or cancelled Frist is struck through
        classes += f" {state}"
    tooltip = " · ".join(
        part for part in (event.title, event.location, event.client.name if event.client_id else "") if part
    )
    return {
        "event": event,
        "url": detail_url(event.pk),
        "start": local_start,
        "end": occ.end.astimezone(tz),
        "date": local_start.date().isoformat(),
        "day": day_iso,
        "iso": local_start.isoformat(),
        "time": local_start.strftime("%H:%M"),
        "classes": classes,
        "state": state,
        "tooltip": tooltip,
        "countdown": days,
        "critical": critical,
    }


def _tabs_context(params: CalendarPageQuery, view: str) -> dict:
    return {"view": view, "query": params.q or ""}


def month_page(request):
    principal = request.principal
    today = _today(principal)
    params = _page_query(request)
    first = (params.month or today).replace(day=1)
    grid_start = first - dt.timedelta(days=first.weekday())
    # Every entry is loaded: the grid draws CHIPS_PER_DAY a day and "+N more", the phone's agenda
    # (the same page under 600 px, templates/calendar/month.html) lists the month's days whole.
    days = _days(principal, grid_start, 42)
    for day in days:
        day["in_month"] = day["date"].month == first.month
        day["chips"] = day["items"][:CHIPS_PER_DAY]
        day["more"] = len(day["items"]) - len(day["chips"])
    prev_month = (first - dt.timedelta(days=1)).replace(day=1)
    next_month = (first + dt.timedelta(days=32)).replace(day=1)
    context = {
        **_tabs_context(params, "month"),
        "month": first,
        "weeks": [days[i : i + 7] for i in range(0, 42, 7)],
        "weekdays": [d["date"] for d in days[:7]],
        "agenda": [d for d in days if d["in_month"] and d["items"]],
        "prev": prev_month.strftime("%Y-%m"),
        "next": next_month.strftime("%Y-%m"),
        "today": today,
        "create_url": reverse("calendar:create"),
        "week_url": reverse("calendar:week"),
    }
    return render(request, "calendar/month.html", context)


SLOTS_PER_HOUR = 4  # the week grid's rows are quarter hours
WORKDAY_HOURS = (7, 19)  # always shown; earlier or later entries widen the grid


def _hour_grid(days: list[dict], tz: dt.tzinfo) -> dict:
    """The week view's hour grid: all-day entries and Fristen go to the row above it, timed
    entries get their quarter-hour rows (clipped to the day) and a lane beside entries they
    overlap. Done here once so the template only writes `grid-row`/`grid-column`."""
    first, last = WORKDAY_HOURS
    for day in days:
        midnight = dt.datetime.combine(day["date"], dt.time(0), tzinfo=tz)
        day["all_day"], day["timed"] = [], []
        for item in day["items"]:
            event = item["event"]
            if event.all_day or event.kind == "deadline":
                day["all_day"].append(item)
                continue
            begin = max(item["start"], midnight)
            finish = min(item["end"], midnight + dt.timedelta(days=1))
            from_minute = int((begin - midnight).total_seconds() // 60)
            to_minute = max(from_minute + 15, int((finish - midnight).total_seconds() // 60))
            day["timed"].append({**item, "from_minute": from_minute, "to_minute": min(to_minute, 24 * 60)})
            first = min(first, from_minute // 60)
            last = max(last, -(-min(to_minute, 24 * 60) // 60))
    for day in days:
        lane_ends: list[int] = []
        for item in day["timed"]:
            lane = next((i for i, end in enumerate(lane_ends) if end <= item["from_minute"]), len(lane_ends))
            if lane == len(lane_ends):
                lane_ends.append(0)
            lane_ends[lane] = item["to_minute"]
            item["lane"] = lane + 1
            item["row_start"] = (item["from_minute"] - first * 60) * SLOTS_PER_HOUR // 60 + 1
            item["row_end"] = max(
                item["row_start"] + 1, -(-(item["to_minute"] - first * 60) * SLOTS_PER_HOUR // 60) + 1
            )
        day["lanes"] = max(1, len(lane_ends))
    return {
        "hours": list(range(first, last)),
        "slots": (last - first) * SLOTS_PER_HOUR,
        "slots_per_hour": SLOTS_PER_HOUR,
        "first_hour": first,
    }


def week_page(request):
    principal = request.principal
    today = _today(principal)
    params = _page_query(request)
    day = params.week or today
    monday = day - dt.timedelta(days=day.weekday())
    days = _days(principal, monday, 7)
    context = {
        **_tabs_context(params, "week"),
        "days": days,
        "grid": _hour_grid(days, principal.time_zone),
        "agenda": [d for d in days if d["items"]],  # the phone's list (week.html)
        "monday": monday,
        "sunday": monday + dt.timedelta(days=6),
        "prev": (monday - dt.timedelta(days=7)).isoformat(),
        "next": (monday + dt.timedelta(days=7)).isoformat(),
        "today": today,
        "week_number": monday.isocalendar()[1],
    }
    return render(request, "calendar/week.html", context)


def agenda_page(request):
    principal = request.principal
    today = _today(principal)
    params = _page_query(request)
    first = params.from_day or today
    context = _tabs_context(params, "agenda")
    days = []
    with reported(request):  # a query the service refuses: say so, list nothing
        days = [d for d in _days(principal, first, AGENDA_DAYS, query=context["query"] or None) if d["items"]]
    context.update(
        {
            "days": days,
            "first": first,
            "last": first + dt.timedelta(days=AGENDA_DAYS - 1),
            "prev": (first - dt.timedelta(days=AGENDA_DAYS)).isoformat(),
            "next": (first + dt.timedelta(days=AGENDA_DAYS)).isoformat(),
            "feed_tokens": feed.active_tokens(principal),
            "new_feed_url": request.session.pop(FEED_URL_SESSION_KEY, None),
        }
    )
    return render(request, "calendar/agenda.html", context)


def _editor_data(request):
    """The posted editor; "use the shifted day" (the weekend/holiday warning's button) moves the
    due date to that day, keeping the time."""
    data = request.POST.copy()
    shift_to = (data.get("shift_to") or "")[:10]
    if shift_to:
        data["start"] = shift_to + (data.get("start") or "")[10:]
    return data


def _warn_non_working(form: EventForm) -> bool:
    """True when the Frist's day is no working day and the person did not choose to keep it: the
    form then shows the warning with the shifted day to take instead."""
    warning = form.non_working_warning()
    if warning is None:
        return False
    form.add_error("start", warning["message"])
    form.shift_warning = warning
    return True


def _cases(principal):
    return fristen_views.case_choices(principal)


def create_page(request):
    principal = request.principal
    clients, cases = client_choices(principal), _cases(principal)
    if request.method == "POST":
        form = EventForm(_editor_data(request), people=_people(), clients=clients, cases=cases)
        if form.is_valid() and not _warn_non_working(form):
            try:
                data = cast(EventCreate, form.validated)
                event = services.create_event(principal, data, origin=Origin.of_request(request, "page"))
            except DomainError as exc:
                form.show_refusal(exc)
            else:
                messages.success(request, _("Saved."))
                if event.is_deadline:
                    return redirect("calendar:detail", event_id=event.pk)
                return redirect(_month_url(event.start.astimezone(principal.time_zone).date()))
    else:
        params = _page_query(request)
        start = dt.datetime.combine(params.date or _today(principal), dt.time(9, 0))
        initial = {
            "start": start.strftime(LOCAL_FORMAT),
            "end": (start + dt.timedelta(hours=1)).strftime(LOCAL_FORMAT),
            "kind": params.kind or "event",
            "visibility": "shared",
            "criticality": "normal",
            "client": str(params.client or ""),
            # From the case page: the Akte (a choice the viewer may see, else the picker stays empty).
            "case": str(params.case or ""),
            "responsible": str(principal.user.pk) if principal.user else "",
        }
        form = EventForm(people=_people(), clients=clients, cases=cases, initial=initial)
    return render(request, "calendar/form.html", {"form": form, "event": None})


@domain_errors
def detail_page(request, event_id: int):
    principal = request.principal
    event = services.get_event(principal, event_id)
    clients, cases = client_choices(principal), _cases(principal)
    people = _people()
    form = EventEditForm(
        people=people, clients=clients, cases=cases, initial=EventForm.values_of(event), event=event
    )
    if request.method == "POST":
        form = EventEditForm(_editor_data(request), people=people, clients=clients, cases=cases, event=event)
        moved = form.is_bound and (
            form.is_changed("start") or form.is_changed("kind") or "shift_to" in form.data
        )
        if form.is_valid() and not (moved and _warn_non_working(form)):
            data = cast(EventUpdate, form.validated)
            try:
                if data.changes():
                    services.update_event(principal, event.pk, data)
            except DomainError as exc:
                form.show_refusal(exc)
            else:
                messages.success(request, _("Saved."))
                return redirect("calendar:detail", event_id=event.pk)
    context = {
        "form": form,
        "event": event,
        "record": event_record(event),
        "history": lifecycle.history(event) if event.is_deadline else None,
    }
    return render(request, "calendar/form.html", context)


def _month_url(day: dt.date) -> str:
    return f"{reverse('calendar:index')}?month={day.strftime('%Y-%m')}"


@require_POST
@domain_errors
def delete(request, event_id: int):
    principal = request.principal
    event = services.get_event(principal, event_id)
    services.delete_event(principal, event_id)
    messages.success(request, _("The entry “%(title)s” was deleted.") % {"title": event.title})
    return redirect(_month_url(event.start.astimezone(principal.time_zone).date()))


@require_POST
@domain_errors(json=True)
def move(request, event_id: int):
    """Drag and drop in the month view: the entry moves by the days between the two dates."""
    event = services.move_event(request.principal, event_id, web.posted(request, EventMove))
    return JsonResponse({"event": event_record(event)})


@require_POST
def feed_create(request):
    with reported(request) as outcome:
        _row, token = feed.create_token(request.principal)
    if not outcome.failed:
        url = request.build_absolute_uri(reverse("calendar:feed", args=[token]))
        request.session[FEED_URL_SESSION_KEY] = url
        messages.success(
            request, _("Your calendar subscription link is ready. Copy it now: it is shown once.")
        )
    return redirect(f"{reverse('calendar:agenda')}#subscribe")


@require_POST
def feed_revoke(request, token_id: int):
    with reported(request) as outcome:
        feed.revoke_token(request.principal, token_id)
    if not outcome.failed:
        messages.success(request, _("The subscription link no longer works."))
    return redirect(f"{reverse('calendar:agenda')}#subscribe")
