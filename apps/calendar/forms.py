"""Forms of the Kalender pages. The entry editor validates through the operations' input models
(`EventCreate`, `EventUpdate`: the same the tools and the REST API take; `InputModelForm`);
`apps.calendar.services` checks what only it can (people, cases, the Fristenbuch) and writes."""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar, cast

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from pydantic import ValidationError

from apps.calendar.contracts import (
    REPEAT_MAX_INTERVAL,
    REPEAT_MAX_OCCURRENCES,
    EventCreate,
    EventUpdate,
    Recurrence,
)
from apps.calendar.models import DESCRIPTION_MAX, TITLE_MAX, CalendarEvent
from apps.calendar.recurrence import zone
from apps.core import validation
from apps.core.errors import DomainError
from apps.core.surfaces.forms import BaselineEditor, BoundedDateField, InputModelForm, add_model_errors
from apps.core.surfaces.web import form_errors
from apps.core.timezones import in_zone
from apps.deadlines.models import DeadlineRule
from apps.deadlines.services import rule_choices

LOCAL_FORMAT = "%Y-%m-%dT%H:%M"
FRISTENRECHNER_FIELDS = ("rule_code", "duration_amount", "duration_unit", "trigger_date", "posted_on")
DURATION_UNITS = [("", "—"), *DeadlineRule.Unit.choices]

# Editor fields and the service field each maps to.
EDITOR_FIELDS = {
    "title": "title",
    "kind": "kind",
    "start": "start",
    "end": "end",
    "all_day": "all_day",
    "location": "location",
    "visibility": "visibility",
    "attendees": "attendee_ids",
    "conference_url": "conference_url",
    "conference_provider": "conference_provider",
    "criticality": "criticality",
    "legal_basis": "legal_basis",
    "source_label": "source_label",
    "client": "client_id",
    "repeat": "repeat",
    "repeat_interval": "repeat_interval",
    "repeat_until": "repeat_until",
    "repeat_count": "repeat_count",
    "remind_minutes_before": "remind_minutes_before",
    "description": "description",
    "responsible": "responsible_id",
    "deputy": "deputy_id",
    "case": "case_id",
    "pre_deadlines": "pre_deadlines",
    "rule_code": "rule_code",
    "trigger_date": "trigger_date",
}
# Editor fields named otherwise in `EventCreate`/`EventUpdate`: the input model's and the
# service's errors on these show on the editor field (the picker builds `rrule` and
# `recurrence_until`).
MODEL_FIELDS = {
    "attendees": "attendee_ids",
    "client": "client_id",
    "repeat": "rrule",
    "repeat_until": "recurrence_until",
    "responsible": "responsible_id",
    "deputy": "deputy_id",
    "case": "case_id",
}
ERROR_FIELDS = {model: name for name, model in MODEL_FIELDS.items()}


# The picker's fields and the `Recurrence` input model's names for them; the model builds the
# RRULE (a posted `rrule` is no field of this form, so it is never taken from the client).
RECURRENCE_FIELDS = {
    "repeat": "frequency",
    "repeat_interval": "interval",
    "repeat_until": "until",
    "repeat_count": "count",
    "start": "starts_on",
}
PICKER_FIELDS = ("repeat", "repeat_interval", "repeat_until", "repeat_count")
REPEAT_CHOICES = [
    ("none", _("Does not repeat")),
    ("daily", _("Daily")),
    ("weekly", _("Weekly")),
    ("monthly", _("Monthly")),
    ("yearly", _("Yearly")),
]
_FREQUENCIES = {"DAILY": "daily", "WEEKLY": "weekly", "MONTHLY": "monthly", "YEARLY": "yearly"}
REMINDER_CHOICES = [
    ("", _("No reminder")),
    ("15", _("15 minutes before")),
    ("60", _("1 hour before")),
    ("1440", _("1 day before")),
]


def picker_values(rule: str, tz_name: str) -> dict[str, str]:
    """A stored RRULE as the picker shows it; a rule the picker cannot express (BYDAY, …) is
    "custom" and is kept as it is unless the person picks another repetition."""
    empty = {"repeat": "none", "repeat_interval": "1", "repeat_until": "", "repeat_count": ""}
    if not rule:
        return empty
    parts = dict(part.split("=", 1) for part in rule.upper().split(";") if "=" in part)
    if set(parts) - {"FREQ", "INTERVAL", "COUNT", "UNTIL"} or parts.get("FREQ") not in _FREQUENCIES:
        return {**empty, "repeat": "custom"}
    values = {**empty, "repeat": _FREQUENCIES[parts["FREQ"]], "repeat_interval": parts.get("INTERVAL", "1")}
    if "COUNT" in parts:
        values["repeat_count"] = parts["COUNT"]
    elif "UNTIL" in parts:
        try:
            until = dt.datetime.strptime(parts["UNTIL"][:15], "%Y%m%dT%H%M%S").replace(tzinfo=dt.UTC)
        except ValueError:
            try:
                until = dt.datetime.strptime(parts["UNTIL"][:8], "%Y%m%d").replace(tzinfo=dt.UTC)
            except ValueError:
                return {**empty, "repeat": "custom"}
        values["repeat_until"] = until.astimezone(zone(tz_name)).date().isoformat()
    return values


def _start_day(text: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat((text or "")[:10])
    except ValueError:
        return None


def _parse_day(text: str) -> dt.date:
    """2026-03-02 or the German 02.03.2026."""
    text = text.strip()
    if "." in text:
        return dt.datetime.strptime(text, "%d.%m.%Y").date()
    return dt.date.fromisoformat(text)


# The picker offers only moments inside the date bound (the service refuses others: date_out_of_range).
MOMENT_ATTRS = {
    "type": "datetime-local",
    "min": f"{validation.YEAR_MIN}-01-01T00:00",
    "max": f"{validation.YEAR_MAX}-12-31T23:59",
}


class EventForm(BaselineEditor, InputModelForm):
    """ "Neuer Termin / neue Frist": every field, validated as an `EventCreate` like the tool's
    and the API's (`self.validated`). Fields declared here carry the page's labels, choices and
    pickers; a field added to the contract is derived from it (`DERIVED_FIELDS`)."""

    input_model: ClassVar[type[EventCreate] | type[EventUpdate]] = EventCreate
    MODEL_FIELDS = MODEL_FIELDS
    DERIVED_FIELDS = "__all__"
    # The author's own zone; the baselines guard an edit instead of a version.
    NOT_DERIVED = frozenset({"time_zone", "expected_version"})
    validated: EventCreate | EventUpdate
    # Shown only while the kind is "deadline" (static/js/calendar-form.js).
    DEADLINE_ONLY = ("responsible", "deputy", "case", "pre_deadlines", "reason", "keep_non_working_day",
                     "legal_basis", "criticality", *FRISTENRECHNER_FIELDS)  # fmt: skip
    # Shown only for appointments: a Frist does not repeat.
    EVENT_ONLY = PICKER_FIELDS

    title = forms.CharField(label=_("Title"), max_length=TITLE_MAX)
    kind = forms.ChoiceField(label=_("Kind"), choices=CalendarEvent.Kind.choices)
    start = forms.CharField(label=_("Start / due"), widget=forms.DateTimeInput(attrs=MOMENT_ATTRS))
    end = forms.CharField(label=_("End"), required=False, widget=forms.DateTimeInput(attrs=MOMENT_ATTRS))
    all_day = forms.BooleanField(label=_("All day"), required=False)
    location = forms.CharField(label=_("Location"), max_length=300, required=False)
    visibility = forms.ChoiceField(label=_("Visible to"), choices=CalendarEvent.Visibility.choices)
    attendees = forms.TypedMultipleChoiceField(
        coerce=int, label=_("Attendees"), required=False, widget=forms.CheckboxSelectMultiple
    )
    conference_url = forms.CharField(label=_("Conference link"), max_length=500, required=False)
    conference_provider = forms.CharField(label=_("Conference provider"), max_length=60, required=False)
    criticality = forms.ChoiceField(label=_("Criticality"), choices=CalendarEvent.Criticality.choices)
    legal_basis = forms.CharField(label=_("Legal basis"), max_length=300, required=False)
    source_label = forms.CharField(label=_("Origin"), max_length=200, required=False)
    client = forms.TypedChoiceField(label=_("Client"), coerce=int, required=False, empty_value=None)
    # The picker only parses; the `Recurrence` input model checks ranges and combinations.
    repeat = forms.ChoiceField(label=_("Repeats"), required=False, choices=REPEAT_CHOICES)
    repeat_interval = forms.IntegerField(
        label=_("Every"),
        required=False,
        widget=forms.NumberInput(attrs={"min": 1, "max": REPEAT_MAX_INTERVAL, "inputmode": "numeric"}),
    )
    repeat_until = BoundedDateField(
        label=_("Ends on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    repeat_count = forms.IntegerField(
        label=_("Ends after (times)"),
        required=False,
        widget=forms.NumberInput(attrs={"min": 1, "max": REPEAT_MAX_OCCURRENCES, "inputmode": "numeric"}),
    )
    remind_minutes_before = forms.TypedChoiceField(
        label=_("Reminder"), coerce=int, required=False, empty_value=None
    )
    description = forms.CharField(
        label=_("Description"),
        max_length=DESCRIPTION_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    # Fristen only (the page hides them for appointments).
    responsible = forms.TypedChoiceField(label=_("Responsible"), coerce=int, required=False, empty_value=None)
    deputy = forms.TypedChoiceField(label=_("Deputy"), coerce=int, required=False, empty_value=None)
    case = forms.TypedChoiceField(label=_("Case"), coerce=int, required=False, empty_value=None)
    pre_deadlines = forms.CharField(
        label=_("Vorfristen"),
        required=False,
        max_length=200,
        help_text=_(
            "Days before the Frist, e.g. 2026-03-02, 2026-03-09 (empty on a new Frist: the default)."
        ),
    )
    reason = forms.CharField(
        label=_("Reason for the change"),
        required=False,
        max_length=500,
        help_text=_("Required when a Frist's due date moves (Fristenbuch)."),
    )
    keep_non_working_day = forms.BooleanField(
        label=_("Keep the due date even though it is no working day"), required=False
    )
    # The Fristenrechner (static/js/fristenrechner.js asks /api/v1/deadlines/compute as one types):
    # the rule and the trigger day are saved with the Frist; the posting day and a duration only
    # feed the calculation.
    rule_code = forms.ChoiceField(label=_("Deadline rule"), required=False)
    duration_amount = forms.IntegerField(
        label=_("or a duration"),
        required=False,
        min_value=1,
        max_value=3650,
        widget=forms.NumberInput(attrs={"min": 1, "max": 3650, "inputmode": "numeric"}),
    )
    duration_unit = forms.ChoiceField(label=_("Unit"), required=False, choices=DURATION_UNITS)
    trigger_date = BoundedDateField(
        label=_("Bekanntgabe / Zustellung on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    posted_on = BoundedDateField(
        label=_("or posted on (zur Post gegeben)"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("The Bekanntgabe is then computed (§ 122 Abs. 2 AO)."),
    )

    def __init__(self, data=None, *, people, clients=(), cases=(), initial: dict | None = None, event=None):
        super().__init__(data, initial=initial or {})
        self.recurrence: Recurrence | None = None
        self.fields["attendees"].choices = [(str(p.pk), p.get_full_name()) for p in people]
        if event is not None and picker_values(event.rrule, event.time_zone)["repeat"] == "custom":
            # The stored rule stays selectable (and is kept) though the picker cannot express it.
            label = _("Custom rule: %(rule)s") % {"rule": event.rrule}
            self.fields["repeat"].choices = [*REPEAT_CHOICES, ("custom", label)]
        reminders = list(REMINDER_CHOICES)
        kept = getattr(event, "remind_minutes_before", None)
        if kept is not None and str(kept) not in dict(reminders):
            reminders.append(
                (str(kept), ngettext("%(n)s minute before", "%(n)s minutes before", kept) % {"n": kept})
            )
        self.fields["remind_minutes_before"].choices = reminders
        self.fields["client"].choices = [("", _("No client"))] + [(str(pk), label) for pk, label in clients]
        staff = [(str(p.pk), p.get_full_name()) for p in people]
        self.fields["responsible"].choices = [("", _("Nobody")), *staff]
        self.fields["deputy"].choices = [("", _("Nobody")), *staff]
        self.fields["case"].choices = [("", _("No case"))] + [
            (str(pk), f"{ref} {subject}") for pk, ref, subject in cases
        ]
        rules = cast(forms.ChoiceField, self.fields["rule_code"])
        rules.choices = [("", _("No rule")), *rule_choices(kept=getattr(event, "rule_code", ""))]
        self.add_baselines()

    FRISTENRECHNER = FRISTENRECHNER_FIELDS

    @property
    def fristenrechner_fields(self) -> list:
        return [self[name] for name in FRISTENRECHNER_FIELDS]

    @property
    def today_iso(self) -> str:
        """Today in the office's zone: the Fristenrechner never suggests a Vorfrist before it."""
        return timezone.localdate().isoformat()

    def clean(self):
        """First the picker through the `Recurrence` input model (its RRULE is kept in
        `self.recurrence`), then the entry through the operation's input model; both even when
        other fields are wrong, so every error shows at once."""
        self._clean_recurrence(self.cleaned_data)
        return super().clean()

    def _clean_recurrence(self, cleaned: dict[str, Any]) -> None:
        repeat = cleaned.get("repeat") or "none"
        if repeat == "custom" or cleaned.get("kind") == "deadline" or "repeat" in self.errors:
            return
        values: dict = {"frequency": repeat}
        if repeat != "none":
            for name in PICKER_FIELDS[1:]:
                if cleaned.get(name) not in (None, ""):
                    values[RECURRENCE_FIELDS[name]] = cleaned[name]
            values["starts_on"] = _start_day(cleaned.get("start"))
        try:
            self.recurrence = Recurrence.model_validate(values)
        except ValidationError as exc:
            add_model_errors(self, exc, RECURRENCE_FIELDS)

    def clean_pre_deadlines(self) -> list[str] | None:
        text = (self.cleaned_data.get("pre_deadlines") or "").strip()
        if not text:
            return None
        days = []
        for part in filter(None, (p.strip() for p in text.replace(";", ",").split(","))):
            try:
                days.append(_parse_day(part).isoformat())
            except ValueError:
                raise forms.ValidationError(
                    _("“%(day)s” is not a date like 2026-03-02 or 02.03.2026.") % {"day": part}
                ) from None
        return days

    def non_working_warning(self) -> dict | None:
        """A Frist entered or moved onto a weekend or holiday: the warning and the shifted day
        (None when the day is a working day, for appointments, or when the person keeps it)."""
        if self.cleaned_data.get("kind") != "deadline" or self.cleaned_data.get("keep_non_working_day"):
            return None
        try:
            day = _parse_day((self.cleaned_data.get("start") or "")[:10])
        except ValueError:
            return None
        if not validation.year_in_range(day):  # the save refuses it (`date_out_of_range`)
            return None
        from apps.deadlines.services import working_day

        found = working_day(day)
        return None if found["working_day"] else found

    @staticmethod
    def values_of(event: CalendarEvent) -> dict:
        tz = zone(event.time_zone)
        start, end = in_zone(event.start, tz), in_zone(event.end, tz)
        if event.all_day and end > start:
            end -= dt.timedelta(days=1)
        return {
            "title": event.title,
            "kind": event.kind,
            "start": start.strftime(LOCAL_FORMAT),
            "end": end.strftime(LOCAL_FORMAT),
            "all_day": "on" if event.all_day else "",
            "location": event.location,
            "visibility": event.visibility,
            "attendees": [str(u.pk) for u in event.attendees.all()],
            "conference_url": event.conference_url,
            "conference_provider": event.conference_provider,
            "criticality": event.criticality,
            "legal_basis": event.legal_basis,
            "source_label": event.source_label,
            "client": str(event.client_id or ""),
            **picker_values(event.rrule, event.time_zone),
            "remind_minutes_before": ""
            if event.remind_minutes_before is None
            else str(event.remind_minutes_before),
            "description": event.description,
            "responsible": str(event.responsible_id or ""),
            "deputy": str(event.deputy_id or ""),
            "case": str(event.case_id or ""),
            "pre_deadlines": ", ".join(p.due_date.isoformat() for p in event.pre_deadlines.all()),
            "rule_code": event.rule_code,
            "trigger_date": event.trigger_date.isoformat() if event.trigger_date else "",
            **{name: EventForm.shown(getattr(event, name, None)) for name in EventForm.derived_names()},
        }

    def model_values(self) -> dict[str, Any]:
        """What `EventCreate` validates: every field, as the service takes it."""
        return self.create_values()

    def create_values(self) -> dict:
        """Every field, as the service takes it (an empty end: the default duration; an empty
        field the contract cannot take as null: its default)."""
        values = {
            service: self._for_service(service, self.cleaned_data.get(name))
            for name, service in self.EDITOR_FIELDS.items()
        }
        if not values["end"]:
            values["end"] = None
        self._recurrence_values(values)
        if values["kind"] != "deadline":  # the Frist fields stay hidden for appointments
            for name in (
                "responsible_id",
                "deputy_id",
                "case_id",
                "pre_deadlines",
                "rule_code",
                "trigger_date",
            ):
                values.pop(name)
        elif self.cleaned_data.get("pre_deadlines") is None:
            values.pop("pre_deadlines")  # left empty: the default Vorfrist (the rule's lead time)
        if not values.get("responsible_id"):
            values.pop("responsible_id", None)  # the author
        return {k: v for k, v in values.items() if v is not None or k in EventCreate.NULLABLE}

    def changes(self) -> dict:
        """The fields the person changed, as the service takes them."""
        values = {
            service: self._for_service(service, value)
            for service, value in self.changed_against_baseline().items()
        }
        if any(name in values for name in PICKER_FIELDS):
            self._recurrence_values(values)
        if "trigger_date" in values and values["trigger_date"] is None:
            del values["trigger_date"]  # the write contract cannot empty it; the tool can
        return values

    def _recurrence_values(self, values: dict) -> None:
        """The picker's fields replaced by the RRULE the input model built (none for a Frist or
        a kept custom rule)."""
        for name in PICKER_FIELDS:
            values.pop(name, None)
        if self.recurrence is not None and self.cleaned_data.get("kind") != "deadline":
            values.update(self.recurrence.service_values())

    @staticmethod
    def _for_service(service_field: str, value):
        if service_field in ("attendee_ids", "pre_deadlines"):
            return value or []
        if service_field == "rule_code":
            return value or ""
        if isinstance(value, str):
            return value.replace("\r\n", "\n")  # browsers send textarea lines with CRLF
        return value

    def show_refusal(self, exc: DomainError) -> None:
        """The service's refusal on the form, each field error on the field the person edits."""
        fields = exc.field_errors
        if any(field in ERROR_FIELDS for field in fields):
            renamed = {ERROR_FIELDS.get(field, field): message for field, message in fields.items()}
            exc = type(exc)(exc.message, details={**exc.details, "field_errors": renamed})
        form_errors(self, exc)


class EventEditForm(EventForm):
    """The editor of an entry: only the fields the person changed against their hidden
    `base_<field>` are saved (see BaselineEditor), as an `EventUpdate` validated like the tool's
    and the API's, so a save never reverts a change someone else (or the copilot) made meanwhile
    to a field this person did not touch."""

    input_model = EventUpdate

    def model_values(self) -> dict[str, Any]:
        """The changed fields and the Fristenbuch reason."""
        return {**self.changes(), "reason": self.cleaned_data.get("reason") or ""}


# Every field the editor saves: those above and those derived from the contract.
EventForm.EDITOR_FIELDS = {**EDITOR_FIELDS, **{name: name for name in EventForm.derived_names()}}
