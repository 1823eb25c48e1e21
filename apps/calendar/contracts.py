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
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from django.db.models import TextChoices
from pydantic import Field, WithJsonSchema

from apps.accounts.contracts import PersonRef
from apps.calendar.models import DESCRIPTION_MAX, RRULE_MAX, TITLE_MAX, CalendarEvent
from apps.clients.contracts import ClientRef
from apps.core.contracts import Input, Output, PageInput, RestBody, paged, query_field, safe_url, wrapped


def _choices(name: str, choices: type[TextChoices]) -> type[StrEnum]:
    """A model's choices as a named enum: one OpenAPI component (`EventKind` …) instead of an
    enum inlined per field, which drf-spectacular names by field and which then collides with
    other domains' `kind` or `visibility`. Tools get it inlined, as before."""
    return StrEnum(name, {member.name: member.value for member in choices})


Kind = _choices("EventKind", CalendarEvent.Kind)
Criticality = _choices("EventCriticality", CalendarEvent.Criticality)
Visibility = _choices("EventVisibility", CalendarEvent.Visibility)
Origin = _choices("EventOrigin", CalendarEvent.Source)
MOMENT = "ISO 8601 with offset, e.g. 2026-12-01T10:00:00+01:00 (a date like 2026-12-01 for all-day)"
# A moment as the records send it: ISO 8601 text in the entry's own zone, its offset kept as is
# (`+00:00`, never rewritten to `Z`), so every surface sends the same text as the live events.
Moment = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


# --- output -----------------------------------------------------------------------------------
class EventOut(Output):
    """A calendar entry, or one occurrence of a series (then `start`/`end` are the occurrence's
    and `series_start` the series' first start). Frist and conference fields are always present."""

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
    owner: PersonRef | None
    attendees: list[PersonRef]
    created_by: PersonRef | None
    created_by_service: str | None = Field(description="The service principal that created it.")
    conference_url: str
    conference_provider: str
    source_origin: Origin
    source_label: str
    client_id: int | None
    client: ClientRef | None
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
    remind_minutes_before: int | None
    reminded_at: Moment | None
    version: int
    created_at: Moment
    updated_at: Moment
    url: str


class DeadlineList(Output):
    deadlines: list[EventOut]


EventPage = paged(EventOut, "events")
EventResult = wrapped(EventOut, "event")


# --- input ------------------------------------------------------------------------------------
class EventFilter(PageInput):
    query: str | None = query_field("Words in title, description, place or client name.")
    start: str | None = Field(
        default=None, max_length=40, description=f"Window start, {MOMENT}. Default: today."
    )
    end: str | None = Field(
        default=None, max_length=40, description=f"Window end, {MOMENT}. Default: start + 31 days."
    )
    kind: Kind | None = Field(default=None, description="Only appointments (event) or Fristen (deadline).")
    client_id: int | None = Field(default=None, description="Only entries of this client (Mandant).")


class DeadlineFilter(Input):
    query: str | None = query_field("Words in title, description, place or client name.")
    client_id: int | None = Field(default=None, description="Only Fristen of this client (Mandant).")


class EventId(Input):
    event_id: int = Field(description="The calendar entry's id.")


class _Body(RestBody):
    NULLABLE: ClassVar[frozenset[str]] = frozenset({"end", "client_id", "remind_minutes_before"})


_REMIND = Field(default=None, ge=0, le=60 * 24 * 60, description="Reminder lead time in minutes.")
_CLIENT = Field(
    default=None, description="The Mandant concerned (id from mandanten_search or mandanten_list)."
)
_RRULE = "RFC 5545 RRULE, must end: e.g. FREQ=WEEKLY;BYDAY=MO;COUNT=10"


class EventCreate(_Body):
    title: str = Field(min_length=1, max_length=TITLE_MAX)
    start: str = Field(
        min_length=1, max_length=40, description=f"Start, or the due moment of a Frist; {MOMENT}."
    )
    end: str | None = Field(default=None, max_length=40, description=f"End, {MOMENT}. Default: start + 1 h.")
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
    recurrence_until: str | None = Field(
        default=None, max_length=40, description="Last day of the series (YYYY-MM-DD)."
    )
    remind_minutes_before: int | None = _REMIND

    def service_kwargs(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class EventUpdate(_Body):
    """A partial change: fields left out stay as they are (a null empties a `NULLABLE` field).
    Without `end`, a new `start` keeps the duration."""

    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX)
    start: str | None = Field(
        default=None, min_length=1, max_length=40, description=f"{MOMENT}; the duration is kept without end."
    )
    end: str | None = Field(default=None, max_length=40, description=MOMENT)
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
    recurrence_until: str | None = Field(
        default=None, max_length=40, description="Last day of the series (YYYY-MM-DD)."
    )
    remind_minutes_before: int | None = _REMIND
    expected_version: int | None = Field(
        default=None, ge=1, description="The version you read; refuse the change if it differs."
    )

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset({"expected_version"})

    def changes(self) -> dict[str, Any]:
        """The fields the caller sent, with their values."""
        return {name: getattr(self, name) for name in self.model_fields_set - self.NOT_CHANGES}


Clearable = Literal[
    "description", "location", "conference_url", "conference_provider", "legal_basis", "source_label",
    "client_id", "rrule", "remind_minutes_before", "attendee_ids",
]  # fmt: skip
CLEARED_TO_NONE = frozenset({"client_id", "remind_minutes_before", "attendee_ids"})


class EventUpdateById(EventUpdate):
    """The tool's form of the change: the entry's id, and `clear_fields` to empty fields."""

    event_id: int
    clear_fields: list[Clearable] = Field(default_factory=list, description="Fields to empty.")

    NOT_CHANGES: ClassVar[frozenset[str]] = frozenset({"expected_version", "event_id", "clear_fields"})

    def changes(self) -> dict[str, Any]:
        changes = super().changes()
        for name in self.clear_fields:
            changes[name] = None if name in CLEARED_TO_NONE else ""
        return changes
