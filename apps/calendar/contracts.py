"""The typed contract of the Kalender operations: what callers send (input models, shared by the
tools and the REST API) and what every surface answers with (output models; `records.event_record`
produces exactly `EventOut`, checked at the API boundary and in the tests).

Write bodies may leave any field out but send null only where the REST API always allowed it
(`end`, `client_id`, `remind_minutes_before`: null empties them). Tools never send null to these
models: the dispatcher drops a null it gets for an optional field, so the tools' "null means
unchanged" needs no second model; a tool empties fields with `clear_fields`.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, ClassVar, Literal, get_args

from django.db.models import Model
from pydantic import (
    AliasChoices,
    BeforeValidator,
    Field,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from pydantic_core.core_schema import ErrorType

from apps.accounts.contracts import AsPerson, AsServiceName, PersonRef, person_ref
from apps.calendar.models import (
    DESCRIPTION_MAX,
    DONE_HOW_MAX,
    NOTE_MAX,
    REASON_MAX,
    RRULE_MAX,
    TITLE_MAX,
    CalendarEvent,
)
from apps.clients.contracts import AsClient
from apps.core.contracts import (
    Date,
    Input,
    MomentText,
    Output,
    PageInput,
    RestBody,
    choices_enum,
    paged,
    query_field,
    safe_url,
    wrapped,
)
from apps.core.outputs import RowOutput

Kind = choices_enum("EventKind", CalendarEvent.Kind)
Criticality = choices_enum("EventCriticality", CalendarEvent.Criticality)
Visibility = choices_enum("EventVisibility", CalendarEvent.Visibility)
Origin = choices_enum("EventOrigin", CalendarEvent.Source)
DeadlineStatus = choices_enum("DeadlineStatus", CalendarEvent.Status)
MOMENT = "ISO 8601 with offset, e.g. 2026-12-01T10:00:00+01:00 (a date like 2026-12-01 for all-day)"
# A moment as the records send it: ISO 8601 text in the entry's own zone, its offset kept as is
# (`+00:00`, never rewritten to `Z`), so every surface sends the same text as the live events.
Moment = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


# --- output -----------------------------------------------------------------------------------
class EventOut(RowOutput):
    """A calendar entry, or one occurrence of a series (then `start`/`end` are the occurrence's
    and `series_start` the series' first start). Frist and conference fields are always present.
    Built from a `records.EventRow` (an entry or an occurrence: the times in the entry's zone)."""

    id: int
    kind: Kind
    title: str
    description: str
    start: Moment
    end: Moment
    all_day: bool
    start_date: dt.date
    end_date: dt.date = Field(description="The last day the entry covers (all-day ends are inclusive).")
    time_zone: str = Field(description="The IANA zone the entry was planned in; times are sent in it.")
    location: str
    visibility: Visibility
    owner: AsPerson | None
    attendees: list[PersonRef]
    created_by: AsPerson | None
    created_by_service: AsServiceName | None = Field(description="The service principal that created it.")
    conference_url: str
    conference_provider: str
    source_origin: Origin
    source_label: str
    client_id: int | None
    client: AsClient | None
    due: Moment | None = Field(description="A Frist's due moment (its start); null for appointments.")
    legal_basis: str
    criticality: Criticality
    countdown_days: int | None = Field(
        description="A Frist's whole days until due, in its zone (negative: overdue); else null."
    )
    is_critical_soon: bool
    rrule: str
    recurring: bool
    series_start: Moment | None = Field(description="An occurrence's series start; else null.")
    status: DeadlineStatus = Field(
        description="A Frist's state: open, done or cancelled (appointments: open)."
    )
    is_overdue: bool = Field(description="An open Frist whose due day has passed.")
    responsible: AsPerson | None = Field(description="Who answers for the Frist.")
    deputy: AsPerson | None = Field(description="Who stands in for the responsible person.")
    pre_deadlines: list[PreDeadlineOut] = Field(description="The Frist's Vorfristen (pre-deadlines).")
    done_at: Moment | None
    done_by: AsPerson | None
    done_how: str = Field(description="How the Frist was met, e.g. Einspruch eingelegt.")
    done_link: str = Field(description="Link to the document or task that met it.")
    cancelled_at: Moment | None
    cancelled_by: AsPerson | None
    cancel_reason: str
    case_id: int | None
    case: CaseRefOut | None
    trigger_date: dt.date | None = Field(description="Bekanntgabe/Zustellung day a computed Frist runs from.")
    rule_code: str = Field(description="The deadline rule it was computed with (calendar_compute_deadline).")
    remind_minutes_before: int | None
    reminded_at: Moment | None
    version: int
    created_at: Moment
    updated_at: Moment
    url: str

    @field_validator("attendees", mode="before")
    @classmethod
    def _people(cls, value: Any) -> Any:
        return [person_ref(u) if isinstance(u, Model) else u for u in value]


class PreDeadlineOut(RowOutput):
    id: int
    due_date: dt.date
    note: str


class CaseRefOut(RowOutput):
    id: int
    reference: str
    subject: str


EventPage = paged(EventOut, "events")
EventResult = wrapped(EventOut, "event")
DeadlinePage = paged(EventOut, "deadlines", name="DeadlinePage")


class DeadlineChangeOut(RowOutput):
    """One line of the Fristenbuch (built from a `DeadlineChange` with its actor selected)."""

    id: int
    event_id: int
    at: Moment
    actor: AsPerson | None
    actor_label: str = Field(description="Who acted, as recorded (a person's or an API key's name).")
    field: str = Field(description="due, responsible, deputy, status or pre_deadlines.")
    old: str
    new: str
    # A row's stored reason in the reader's language (`reason_shown`); a dict's `reason` as given.
    reason: str = Field(
        description="Why, in the reader's language when the system gave the reason.",
        validation_alias=AliasChoices("reason_shown", "reason"),
    )
    reason_code: str | None = Field(
        default=None, description="Set when the system gave the reason (e.g. document_names_new_date)."
    )

    @field_validator("at", mode="before")
    @classmethod
    def _moment(cls, value: Any) -> Any:
        return value.isoformat() if isinstance(value, dt.datetime) else value

    @field_validator("reason_code", mode="before")
    @classmethod
    def _coded(cls, value: Any) -> Any:
        return value or None


DeadlineHistory = wrapped(list[DeadlineChangeOut], "history", name="DeadlineHistory")


class EventDeleted(Output):
    """`calendar_delete_event`: the id of the deleted appointment."""

    deleted: int


# --- input ------------------------------------------------------------------------------------
class EventFilter(PageInput):
    query: str | None = query_field("Words in title, description, place or client name.")
    start: MomentText | None = Field(
        default=None, max_length=40, description=f"Window start, {MOMENT}. Default: today."
    )
    end: MomentText | None = Field(
        default=None, max_length=40, description=f"Window end, {MOMENT}. Default: start + 31 days."
    )
    kind: Kind | None = Field(default=None, description="Only appointments (event) or Fristen (deadline).")
    client_id: int | None = Field(default=None, description="Only entries of this client (Mandant).")
    case_id: int | None = Field(default=None, description="Only entries of this case (Akte).")
    status: DeadlineStatus | None = Field(default=None, description="Only Fristen in this state.")
    responsible_id: int | None = Field(default=None, description="Only Fristen this person answers for.")
    deputy_id: int | None = Field(default=None, description="Only Fristen this person is deputy for.")


class DeadlineFilter(PageInput):
    """The Fristenkontrolle: overdue first, then by due date."""

    query: str | None = query_field("Words in title, description or place.")
    status: DeadlineStatus | None = Field(
        default=DeadlineStatus.OPEN, description="open (default), done or cancelled."
    )
    all_statuses: bool = Field(default=False, description="Every state (ignores status).")
    person_id: int | None = Field(
        default=None, description="Fristen this person is responsible or deputy for."
    )
    responsible_id: int | None = Field(default=None, description="Only Fristen this person answers for.")
    deputy_id: int | None = Field(default=None, description="Only Fristen this person is deputy for.")
    due_from: Date | None = Field(default=None, description="First due day (YYYY-MM-DD).")
    due_to: Date | None = Field(default=None, description="Last due day (YYYY-MM-DD).")
    client_id: int | None = Field(default=None, description="Only Fristen of this client (Mandant).")
    case_id: int | None = Field(default=None, description="Only Fristen of this case (Akte).")
    criticality: Criticality | None = None
    orphaned: bool = Field(
        default=False, description="Only Fristen without an active responsible person (to reassign)."
    )

    def filters(self):
        from apps.calendar.fristen import FristenFilter

        values = self.model_dump(exclude={"limit", "offset", "all_statuses"})
        if self.all_statuses:
            values["status"] = None
        return FristenFilter(**values)


def _month_day(value: Any) -> Any:
    """`?month=2026-03` names the month's first day."""
    return f"{value}-01" if isinstance(value, str) and len(value.strip()) == 7 else value


def _words(value: Any) -> Any:
    return value.strip()[:200] or None if isinstance(value, str) else value


class CalendarPageQuery(Input):
    """The Kalender pages' query string (`web.query`): the day or month a grid shows, the search
    words, and what the editor starts with. Never a REST or tool contract."""

    month: Annotated[Date | None, BeforeValidator(_month_day)] = None
    week: Date | None = None
    from_day: Date | None = Field(default=None, validation_alias=AliasChoices("from", "from_day"))
    date: Date | None = None
    q: Annotated[str | None, BeforeValidator(_words)] = None
    kind: Literal["event", "deadline"] | None = None
    client: int | None = None
    case: int | None = None


class FristenPageQuery(Input):
    """The Fristenkontrolle page's query string (`web.query`): `who=me` (responsible or deputy) or
    a person's id, `status=all`, the due period, client, case, criticality and the admins'
    `orphaned=1`. Never a REST or tool contract (those use `DeadlineFilter`)."""

    who: str | None = Field(default=None, pattern=r"^(me|[1-9][0-9]{0,17})$")
    status: Literal["open", "done", "cancelled", "all"] = "open"
    from_day: Date | None = Field(default=None, validation_alias=AliasChoices("from", "from_day"))
    to_day: Date | None = Field(default=None, validation_alias=AliasChoices("to", "to_day"))
    client: int | None = Field(default=None, ge=1)
    case: int | None = Field(default=None, ge=1)
    criticality: Literal["low", "normal", "high", "critical"] | None = None
    orphaned: bool = False
    q: Annotated[str | None, BeforeValidator(_words)] = None


class EventId(Input):
    event_id: int = Field(description="The calendar entry's id.")


class _Body(RestBody):
    NULLABLE: ClassVar[frozenset[str]] = frozenset(
        {"end", "client_id", "remind_minutes_before", "responsible_id", "deputy_id", "case_id"}
    )


class PreDeadlineIn(Input):
    due_date: Date = Field(description="The Vorfrist day (YYYY-MM-DD), not after the Frist.")
    note: str = Field(default="", max_length=NOTE_MAX)

    @model_validator(mode="before")
    @classmethod
    def _bare_day(cls, data: Any) -> Any:
        """Internal callers (the page form) may give a bare day for a Vorfrist without a note."""
        return {"due_date": data} if isinstance(data, (str, dt.date)) else data


_PRE = Field(
    default=None,
    max_length=10,
    description="Frist: its Vorfristen (replaces them all). Default on creation: the rule's, else 7 days before.",
)
_RESPONSIBLE = Field(default=None, description="Frist: the staff member who answers for it (default: you).")
_DEPUTY = Field(default=None, description="Frist: the staff member who stands in.")
_CASE = Field(default=None, description="The case (Akte) concerned; its client is the entry's client.")
_TRIGGER = Field(default=None, description="Frist: the Bekanntgabe/Zustellung day it runs from.")
_RULE = Field(default=None, max_length=60, description="Frist: the rule code it was computed with.")


_REMIND = Field(default=None, ge=0, le=60 * 24 * 60, description="Reminder lead time in minutes.")
_CLIENT = Field(
    default=None, description="The Mandant concerned (id from mandanten_search or mandanten_list)."
)
_RRULE = "RFC 5545 RRULE, must end: e.g. FREQ=WEEKLY;BYDAY=MO;COUNT=10"


# The fields an entry is created and changed with alike (after the ones each declares itself):
# the series' end, the reminder, and the Frist's people, case, pre-deadlines and origin.
class _EventTail(Input):
    recurrence_until: MomentText | None = Field(
        default=None, max_length=40, description="Last day of the series (YYYY-MM-DD)."
    )
    remind_minutes_before: int | None = _REMIND
    responsible_id: int | None = _RESPONSIBLE
    deputy_id: int | None = _DEPUTY
    case_id: int | None = _CASE
    pre_deadlines: list[PreDeadlineIn] | None = _PRE
    trigger_date: Date | None = _TRIGGER
    rule_code: str | None = _RULE


class _EventCreateFields(_Body):
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    start: MomentText = Field(
        min_length=1, max_length=40, description=f"Start, or the due moment of a Frist; {MOMENT}."
    )
    end: MomentText | None = Field(
        default=None, max_length=40, description=f"End, {MOMENT}. Default: start + 1 h."
    )
    kind: Kind = Field(default=Kind.EVENT, description="event: appointment; deadline: a Frist.")
    all_day: bool = Field(default=False, description="A whole-day entry (start/end as dates).")
    time_zone: str | None = Field(default=None, max_length=64, description="IANA zone, default yours.")
    description: str = Field(default="", max_length=DESCRIPTION_MAX)
    location: str = Field(default="", max_length=300)
    visibility: Visibility = Field(
        default=Visibility.SHARED, description="shared: office calendar (default); private: only you."
    )
    attendee_ids: list[int] = Field(default_factory=list, description="Staff ids taking part.")
    conference_url: safe_url(500) = Field(default="", description="Video meeting link (https://…).")
    conference_provider: str = Field(default="", max_length=60, description="e.g. Teams, Zoom, Google Meet.")
    legal_basis: str = Field(default="", max_length=300, description="Frist: legal basis, e.g. § 355 AO.")
    criticality: Criticality = Field(
        default=Criticality.NORMAL, description="Frist: how bad missing it would be."
    )
    source_label: str = Field(default="", max_length=200, description="Where the entry came from.")
    client_id: int | None = _CLIENT
    rrule: str = Field(default="", max_length=RRULE_MAX, description=_RRULE)


class EventCreate(_EventTail, _EventCreateFields):
    def values(self) -> dict[str, Any]:
        """The fields given (a left-out or null field takes the service's default)."""
        return self.model_dump(exclude_none=True)


class FiledEvent(EventCreate):
    """An entry filed by the system from something else (a document): its origin is part of the
    input. Never a surface's contract (surfaces get theirs from `apps.core.origin.Origin`)."""

    source_origin: Literal["manual", "agent", "document", "api"] | None = None


class _EventUpdateFields(_Body):
    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    start: MomentText | None = Field(
        default=None, min_length=1, max_length=40, description=f"{MOMENT}; the duration is kept without end."
    )
    end: MomentText | None = Field(default=None, max_length=40, description=MOMENT)
    kind: Kind | None = None
    all_day: bool | None = Field(default=None, description="A whole-day entry (start/end as dates).")
    time_zone: str | None = Field(default=None, max_length=64, description="IANA zone.")
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    location: str | None = Field(default=None, max_length=300)
    visibility: Visibility | None = Field(
        default=None, description="shared: office calendar; private: only you."
    )
    attendee_ids: list[int] | None = Field(default=None, description="Staff ids taking part.")
    conference_url: safe_url(500) | None = Field(default=None, description="Video meeting link (https://…).")
    conference_provider: str | None = Field(
        default=None, max_length=60, description="e.g. Teams, Zoom, Google Meet."
    )
    legal_basis: str | None = Field(default=None, max_length=300, description="Frist: legal basis.")
    criticality: Criticality | None = Field(default=None, description="Frist: how bad missing it would be.")
    source_label: str | None = Field(default=None, max_length=200, description="Where the entry came from.")
    client_id: int | None = _CLIENT
    rrule: str | None = Field(default=None, max_length=RRULE_MAX, description=_RRULE)


class EventUpdate(_EventTail, _EventUpdateFields):
    """A partial change: fields left out stay as they are (a null empties a `NULLABLE` field).
    Without `end`, a new `start` keeps the duration."""

    expected_version: int | None = Field(
        default=None, ge=1, description="The version you read; refuse the change if it differs."
    )
    reason: str = Field(
        default="", max_length=REASON_MAX, description="Why (required when a Frist's due date moves)."
    )

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset({"expected_version", "reason"})

    def changes(self) -> dict[str, Any]:
        """The fields the caller sent, with their values."""
        return {name: getattr(self, name) for name in self.model_fields_set - self.NOT_CHANGES}


Clearable = Literal[
    "description", "location", "conference_url", "conference_provider", "legal_basis", "source_label",
    "client_id", "rrule", "remind_minutes_before", "attendee_ids", "deputy_id", "case_id", "pre_deadlines",
    "trigger_date", "rule_code",
]  # fmt: skip
CLEARED_TO_NONE = frozenset({"client_id", "remind_minutes_before", "attendee_ids", "deputy_id", "case_id",
                             "trigger_date"})  # fmt: skip
CLEARED_TO_LIST = frozenset({"pre_deadlines"})


class EventUpdateById(EventUpdate):
    """The tool's form of the change: the entry's id, and `clear_fields` to empty fields."""

    event_id: int
    clear_fields: list[Clearable] = Field(default_factory=list, description="Fields to empty.")

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset(
        {"expected_version", "event_id", "clear_fields", "reason"}
    )

    def changes(self) -> dict[str, Any]:
        changes = super().changes()
        for name in self.clear_fields:
            changes[name] = [] if name in CLEARED_TO_LIST else None if name in CLEARED_TO_NONE else ""
        return changes


class FiledEventUpdate(EventUpdate):
    """A change made by the system (the document workflow): the Fristenbuch reason as a code of
    `reasons.SYSTEM_REASONS`, shown in each reader's language. Never a surface's contract."""

    reason_code: str = Field(default="", max_length=60)
    reason_params: dict[str, str] = Field(default_factory=dict)

    @field_validator("reason_code")
    @classmethod
    def _known_code(cls, code: str) -> str:
        from apps.calendar.reasons import SYSTEM_REASONS

        if code and code not in SYSTEM_REASONS:
            raise ValueError(f"unknown Fristenbuch reason code {code!r}")
        return code

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset(
        {"expected_version", "reason", "reason_code", "reason_params"}
    )


class EventMove(Input):
    """Drag and drop in the month view: the entry moves by the days between the two dates."""

    from_date: Date = Field(description="The day the entry was dragged from (YYYY-MM-DD).")
    to_date: Date = Field(description="The day it was dropped on (YYYY-MM-DD).")
    reason: str = Field(default="", max_length=REASON_MAX, description="Why (required for a Frist).")


# --- a Frist's lifecycle --------------------------------------------------------------------------
class DeadlineComplete(RestBody):
    how: str = Field(
        min_length=1, max_length=DONE_HOW_MAX, description="How it was met, e.g. Einspruch eingelegt."
    )
    link: safe_url(500) = Field(default="", description="Link to the document or task that met it.")
    expected_version: int | None = Field(default=None, ge=1, description="The version you read.")


class DeadlineCancel(RestBody):
    reason: str = Field(min_length=1, max_length=REASON_MAX, description="Why the Frist no longer applies.")
    expected_version: int | None = Field(default=None, ge=1, description="The version you read.")


class DeadlineReopen(RestBody):
    """Open a done or cancelled Frist again. The reason is required (the service refuses an empty
    one with `deadline_reason_required`); it goes into the Fristenbuch with the status change."""

    reason: str = Field(
        default="",
        max_length=REASON_MAX,
        description="Why it is open again (required), e.g. Einspruch zurückgewiesen.",
    )
    expected_version: int | None = Field(default=None, ge=1, description="The version you read.")


class DeadlineReopenById(DeadlineReopen):
    event_id: int = Field(description="The Frist's id.")


class DeadlineCompleteById(DeadlineComplete):
    event_id: int = Field(description="The Frist's id.")


class DeadlineCancelById(DeadlineCancel):
    event_id: int = Field(description="The Frist's id.")


class HistoryFilter(Input):
    """A period of the Fristenbuch (both days inclusive)."""

    since: Date | None = Field(default=None, description="First day (YYYY-MM-DD).")
    until: Date | None = Field(default=None, description="Last day (YYYY-MM-DD).")


class FristenbuchExportQuery(HistoryFilter):
    """The export link's period: a value that is no date is left out (a hand-edited link), a year
    outside the bound is `date_out_of_range`."""

    @field_validator("since", "until", mode="before")
    @classmethod
    def _no_date_is_none(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            return None


# --- the editor's recurrence picker -----------------------------------------------------------
REPEAT_MAX_OCCURRENCES = 500  # a picked series; the stored rule's own cap is recurrence.MAX_OCCURRENCES
REPEAT_MAX_INTERVAL = 99
_FREQ = {"daily": "DAILY", "weekly": "WEEKLY", "monthly": "MONTHLY", "yearly": "YEARLY"}
_PYDANTIC_ERROR_TYPES = frozenset(get_args(ErrorType))
_DAYS_PER = {"daily": 1, "weekly": 7, "monthly": 28, "yearly": 365}  # the shortest period: an upper estimate


def _as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and len(value.strip()) >= 10:
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


class Recurrence(Input):
    """How an entry repeats, as the page's picker sends it. The stored form stays the RFC 5545
    RRULE, built here by `rrule()` (never taken from the client); the end date goes to the
    service as `recurrence_until`, which turns it into the rule's UTC UNTIL. Every problem is
    reported at once (the cross-field checks run even when a field is invalid)."""

    frequency: Literal["none", "daily", "weekly", "monthly", "yearly"] = "none"
    interval: int = Field(default=1, ge=1, le=REPEAT_MAX_INTERVAL, description="Every n-th day/week/…")
    until: Date | None = Field(default=None, description="Last day of the series.")
    count: int | None = Field(
        default=None, ge=1, le=REPEAT_MAX_OCCURRENCES, description="Number of occurrences."
    )
    starts_on: Date | None = Field(
        default=None, description="The entry's first day (the end may not be before it)."
    )

    @model_validator(mode="wrap")
    @classmethod
    def _every_error(cls, data: Any, handler):
        errors: list[dict[str, Any]] = []
        try:
            model = handler(data)
        except ValidationError as exc:
            model = None
            for error in exc.errors(include_url=False):
                kind = error["type"]
                if kind not in _PYDANTIC_ERROR_TYPES:  # our own (date_out_of_range) travel as custom errors
                    kind = PydanticCustomError(kind, error["msg"].replace("{", "(").replace("}", ")"))
                detail = {"type": kind, "loc": error["loc"], "input": error["input"]}
                if "ctx" in error:
                    detail["ctx"] = error["ctx"]
                errors.append(detail)
        raw = data if isinstance(data, dict) else {}
        errors += cls._cross_field(raw)
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return model

    @staticmethod
    def _cross_field(raw: dict[str, Any]) -> list[dict[str, Any]]:
        from django.utils.translation import gettext as _

        def error(code: str, message: str, field: str) -> dict[str, Any]:
            # The message is already localized; braces would be read as placeholders.
            text = message.replace("{", "(").replace("}", ")")
            return {"type": PydanticCustomError(code, text), "loc": (field,), "input": raw.get(field)}

        frequency = raw.get("frequency") or "none"
        if frequency == "none":
            return []
        found = []
        until, starts = _as_date(raw.get("until")), _as_date(raw.get("starts_on"))
        count = raw.get("count")
        if until is not None and count not in (None, ""):
            found.append(
                error("recurrence_two_ends", _("Give an end date or a number of times, not both."), "count")
            )
        if until is None and count in (None, ""):
            found.append(
                error(
                    "recurrence_endless",
                    _("A series must end: give an end date or a number of times."),
                    "until",
                )
            )
        if until is not None and starts is not None:
            if until < starts:
                found.append(
                    error(
                        "recurrence_ends_before_start", _("The series cannot end before it starts."), "until"
                    )
                )
            interval = raw.get("interval")
            interval = interval if isinstance(interval, int) and interval >= 1 else 1
            estimate = (until - starts).days // (_DAYS_PER.get(frequency, 1) * interval) + 1
            if frequency in _DAYS_PER and estimate > REPEAT_MAX_OCCURRENCES:
                found.append(error(
                    "recurrence_too_many",
                    _("A series may have at most %(n)s occurrences: choose an earlier end date.")
                    % {"n": REPEAT_MAX_OCCURRENCES},
                    "until",
                ))  # fmt: skip
        return found

    def rrule(self) -> str:
        """The RRULE text without its end date (the service appends UNTIL from `until`)."""
        if self.frequency == "none":
            return ""
        parts = [f"FREQ={_FREQ[self.frequency]}"]
        if self.interval > 1:
            parts.append(f"INTERVAL={self.interval}")
        if self.count:
            parts.append(f"COUNT={self.count}")
        return ";".join(parts)

    def service_values(self) -> dict[str, Any]:
        """`rrule` and `recurrence_until` as `services.create_event`/`update_event` take them."""
        values: dict[str, Any] = {"rrule": self.rrule()}
        if values["rrule"] and self.until is not None:
            values["recurrence_until"] = self.until.isoformat()
        return values
