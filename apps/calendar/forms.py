"""Forms of the Kalender pages. They parse input; `apps.calendar.services` validates and writes."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.calendar.models import DESCRIPTION_MAX, RRULE_MAX, TITLE_MAX, CalendarEvent
from apps.calendar.recurrence import zone
from apps.core.errors import DomainError
from apps.core.forms import BaselineEditor
from apps.core.web import form_errors

LOCAL_FORMAT = "%Y-%m-%dT%H:%M"

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
    "rrule": "rrule",
    "remind_minutes_before": "remind_minutes_before",
    "description": "description",
    "responsible": "responsible_id",
    "deputy": "deputy_id",
    "case": "case_id",
    "pre_deadlines": "pre_deadlines",
}
REFERENCE_FIELDS = frozenset({"client_id", "responsible_id", "deputy_id", "case_id"})
# Service fields whose errors belong on an editor field of another name (`client_id` → `client`
# is `form_errors`' own rule).
ERROR_FIELDS = {
    "attendee_ids": "attendees",
    "recurrence_until": "rrule",
    "responsible_id": "responsible",
    "deputy_id": "deputy",
    "case_id": "case",
}


def _parse_day(text: str) -> dt.date:
    """2026-03-02 or the German 02.03.2026."""
    text = text.strip()
    if "." in text:
        return dt.datetime.strptime(text, "%d.%m.%Y").date()
    return dt.date.fromisoformat(text)


class EventForm(BaselineEditor):
    """Create and edit. Editing saves only the fields the person changed against their hidden
    `base_<field>` (see BaselineEditor), so a save never reverts a change someone else (or the
    copilot) made meanwhile to a field this person did not touch."""

    EDITOR_FIELDS = EDITOR_FIELDS
    # Shown only while the kind is "deadline" (static/js/calendar-form.js).
    DEADLINE_ONLY = ("responsible", "deputy", "case", "pre_deadlines", "reason", "keep_non_working_day",
                     "legal_basis", "criticality")  # fmt: skip

    title = forms.CharField(label=_("Title"), max_length=TITLE_MAX)
    kind = forms.ChoiceField(label=_("Kind"), choices=CalendarEvent.Kind.choices)
    start = forms.CharField(
        label=_("Start / due"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    end = forms.CharField(
        label=_("End"), required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    all_day = forms.BooleanField(label=_("All day"), required=False)
    location = forms.CharField(label=_("Location"), max_length=300, required=False)
    visibility = forms.ChoiceField(label=_("Visible to"), choices=CalendarEvent.Visibility.choices)
    attendees = forms.MultipleChoiceField(label=_("Attendees"), required=False)
    conference_url = forms.CharField(label=_("Conference link"), max_length=500, required=False)
    conference_provider = forms.CharField(label=_("Conference provider"), max_length=60, required=False)
    criticality = forms.ChoiceField(label=_("Criticality"), choices=CalendarEvent.Criticality.choices)
    legal_basis = forms.CharField(label=_("Legal basis"), max_length=300, required=False)
    source_label = forms.CharField(label=_("Origin"), max_length=200, required=False)
    client = forms.ChoiceField(label=_("Client"), required=False)
    rrule = forms.CharField(
        label=_("Repeats (RRULE)"),
        max_length=RRULE_MAX,
        required=False,
        help_text=_("e.g. FREQ=WEEKLY;BYDAY=MO;COUNT=10 — a series must end (COUNT or UNTIL)."),
    )
    remind_minutes_before = forms.IntegerField(
        label=_("Reminder (minutes before)"), required=False, min_value=0
    )
    description = forms.CharField(
        label=_("Description"),
        max_length=DESCRIPTION_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    # Fristen only (the page hides them for appointments).
    responsible = forms.ChoiceField(label=_("Responsible"), required=False)
    deputy = forms.ChoiceField(label=_("Deputy"), required=False)
    case = forms.ChoiceField(label=_("Case"), required=False)
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

    def __init__(self, data=None, *, people, clients=(), cases=(), initial: dict | None = None):
        super().__init__(data, initial=initial or {})
        self.fields["attendees"].choices = [(str(p.pk), p.get_full_name()) for p in people]
        self.fields["client"].choices = [("", _("No client"))] + [(str(pk), label) for pk, label in clients]
        staff = [(str(p.pk), p.get_full_name()) for p in people]
        self.fields["responsible"].choices = [("", _("Nobody")), *staff]
        self.fields["deputy"].choices = [("", _("Nobody")), *staff]
        self.fields["case"].choices = [("", _("No case"))] + [
            (str(pk), f"{ref} {subject}") for pk, ref, subject in cases
        ]
        self.add_baselines()

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
        from apps.deadlines.services import working_day

        found = working_day(day)
        return None if found["working_day"] else found

    @staticmethod
    def values_of(event: CalendarEvent) -> dict:
        tz = zone(event.time_zone)
        start, end = event.start.astimezone(tz), event.end.astimezone(tz)
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
            "rrule": event.rrule,
            "remind_minutes_before": ""
            if event.remind_minutes_before is None
            else str(event.remind_minutes_before),
            "description": event.description,
            "responsible": str(event.responsible_id or ""),
            "deputy": str(event.deputy_id or ""),
            "case": str(event.case_id or ""),
            "pre_deadlines": ", ".join(p.due_date.isoformat() for p in event.pre_deadlines.all()),
        }

    def create_values(self) -> dict:
        """Every field, as the service takes it (an empty end: the default duration)."""
        values = {
            service: self._for_service(service, self.cleaned_data.get(name))
            for name, service in EDITOR_FIELDS.items()
        }
        if not values["end"]:
            values["end"] = None
        if values["kind"] != "deadline":  # the Frist fields stay hidden for appointments
            for name in ("responsible_id", "deputy_id", "case_id", "pre_deadlines"):
                values.pop(name)
        elif values["pre_deadlines"] is None:
            values.pop("pre_deadlines")  # the default Vorfrist
        if not values.get("responsible_id"):
            values.pop("responsible_id", None)  # the author
        return values

    def changes(self) -> dict:
        """The fields the person changed, as the service takes them."""
        return {
            service: self._for_service(service, value)
            for service, value in self.changed_against_baseline().items()
        }

    @staticmethod
    def _for_service(service_field: str, value):
        if service_field == "attendee_ids":
            return [int(pk) for pk in value or ()]
        if service_field in REFERENCE_FIELDS:
            return int(value) if value else None
        if service_field == "pre_deadlines":
            return value or []
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
