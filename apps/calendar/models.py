"""Kalender: office events and Fristen (deadlines), recurring series, reminders, ICS feed tokens."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from apps.accounts.models import CreatedBy, owner_link, user_link
from apps.clients.models import case_link, client_link
from apps.core.db.model_fields import german_search, search_index, shared_or_owned
from apps.core.models import Timestamped, Versioned
from apps.deadlines.models import DeadlineRule

TITLE_MAX = 300
DESCRIPTION_MAX = 20_000
RRULE_MAX = 500
DONE_HOW_MAX = 300
REASON_MAX = 500
NOTE_MAX = 300


class CalendarEvent(CreatedBy, Versioned, Timestamped):
    class Kind(models.TextChoices):
        EVENT = "event", _("Appointment")
        DEADLINE = "deadline", _("Deadline")

    class Visibility(models.TextChoices):
        SHARED = "shared", _("Office calendar")
        PRIVATE = "private", _("Private")

    # One scale for a Frist and the default of the rule it was computed from.
    Criticality = DeadlineRule.Criticality

    class Status(models.TextChoices):
        """A Frist's lifecycle (appointments stay `open`). A Frist is never deleted: it is cancelled."""

        OPEN = "open", pgettext_lazy("deadline status", "open")
        DONE = "done", pgettext_lazy("deadline status", "done")
        CANCELLED = "cancelled", pgettext_lazy("deadline status", "cancelled")

    class Source(models.TextChoices):
        MANUAL = "manual", _("Created by hand")
        AGENT = "agent", _("Copilot")
        DOCUMENT = "document", _("Document")
        API = "api", _("API")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.EVENT)
    title = models.CharField(_("title"), max_length=TITLE_MAX)
    description = models.TextField(_("description"), blank=True)
    # For deadlines `start` is the due moment and `end` equals it (or the end of an all-day due date).
    start = models.DateTimeField(_("start"))
    end = models.DateTimeField(_("end"))
    all_day = models.BooleanField(_("all day"), default=False)
    # The wall clock the event was planned in: recurring series keep their local time across DST.
    time_zone = models.CharField(_("time zone"), max_length=64, default=settings.TIME_ZONE)
    location = models.CharField(_("location"), max_length=300, blank=True)
    visibility = models.CharField(
        _("visibility"), max_length=10, choices=Visibility.choices, default=Visibility.SHARED
    )
    owner = owner_link("owned_calendar_events")
    attendees = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="calendar_events", verbose_name=_("attendees")
    )
    conference_url = models.URLField(_("conference link"), max_length=500, blank=True)
    conference_provider = models.CharField(_("conference provider"), max_length=60, blank=True)
    source_origin = models.CharField(
        _("origin"), max_length=10, choices=Source.choices, default=Source.MANUAL
    )
    # Fristen
    legal_basis = models.CharField(_("legal basis"), max_length=300, blank=True)
    criticality = models.CharField(
        _("criticality"), max_length=10, choices=Criticality.choices, default=Criticality.NORMAL
    )
    source_label = models.CharField(_("origin label"), max_length=200, blank=True)
    # The Mandant concerned. PROTECT: a client with Fristen is retired (status inactive), never
    # deleted, so no deadline silently loses whom it concerns. Indexed with `start` below.
    client = client_link("calendar_events", db_index=False)
    # The Akte concerned (its client is the entry's client).
    case = case_link("calendar_events")
    # Fristenkontrolle: who answers for the Frist, and its lifecycle (db defaults: rows written by
    # older code stay valid). Only the services write these,
    # and every change of due date, responsible, deputy, status or Vorfrist leaves a DeadlineChange.
    responsible = user_link(
        _("responsible"), related_name="deadlines_responsible", on_delete=models.PROTECT, db_index=False
    )
    deputy = user_link(_("deputy"), related_name="deadlines_deputy", on_delete=models.PROTECT, db_index=False)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN, db_default=Status.OPEN
    )
    done_at = models.DateTimeField(_("done at"), null=True, blank=True)
    done_by = user_link(_("done by"))
    done_how = models.CharField(_("how it was done"), max_length=DONE_HOW_MAX, blank=True, db_default="")
    # A stored link (apps.core.validation.url): rendered only through |safe_href.
    done_link = models.CharField(_("done in (link)"), max_length=500, blank=True, db_default="")
    cancelled_at = models.DateTimeField(_("cancelled at"), null=True, blank=True)
    cancelled_by = user_link(_("cancelled by"))
    cancel_reason = models.CharField(
        _("reason for cancelling"), max_length=REASON_MAX, blank=True, db_default=""
    )
    # A Frist computed from a rule of the deadlines catalog: the trigger day and the rule's code.
    trigger_date = models.DateField(_("trigger date"), null=True, blank=True)
    rule_code = models.CharField(_("rule"), max_length=60, blank=True, db_default="")
    # Recurrence (RFC 5545 RRULE, always bounded by COUNT or UNTIL) and the end of its last occurrence.
    rrule = models.CharField(_("recurrence rule"), max_length=RRULE_MAX, blank=True)
    recurrence_end = models.DateTimeField(null=True, blank=True)
    # Reminders: `remind_at` is the next reminder moment (derived by the services), `reminded_at`
    # when it was sent.
    remind_minutes_before = models.PositiveIntegerField(_("reminder (minutes before)"), null=True, blank=True)
    remind_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)
    search = german_search("title", "description", "location")

    class Meta:
        verbose_name = _("calendar entry")
        verbose_name_plural = _("calendar entries")
        ordering = ["start", "id"]
        indexes = [
            models.Index(fields=["start", "end"], name="cal_event_window"),
            models.Index(fields=["kind", "start"], name="cal_event_kind_start"),
            models.Index(fields=["owner", "visibility"], name="cal_event_owner"),
            models.Index(fields=["client", "start"], name="cal_event_client_start"),
            models.Index(fields=["start", "recurrence_end"], condition=~Q(rrule=""), name="cal_event_series"),
            models.Index(
                fields=["remind_at"],
                condition=Q(remind_at__isnull=False, reminded_at__isnull=True),
                name="cal_event_reminder_due",
            ),
            search_index("cal_event_search"),
            # Fristenkontrolle: open Fristen by due date, per responsible person, per deputy.
            models.Index(
                fields=["status", "start"], condition=Q(kind="deadline"), name="cal_deadline_status_due"
            ),
            models.Index(
                fields=["responsible", "status", "start"],
                condition=Q(kind="deadline"),
                name="cal_deadline_responsible",
            ),
            models.Index(
                fields=["deputy", "status", "start"], condition=Q(kind="deadline"), name="cal_deadline_deputy"
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(end__gte=F("start")), name="cal_event_end_after_start"),
            shared_or_owned("cal_event_private_has_owner"),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_deadline(self) -> bool:
        return self.kind == self.Kind.DEADLINE

    @property
    def is_recurring(self) -> bool:
        return bool(self.rrule)


class PreDeadline(models.Model):
    """A Vorfrist: a day before the Frist by which the work should be ready. A Frist has one or more
    (the rule's default lead time, else the instance default); each is editable."""

    event = models.ForeignKey(CalendarEvent, on_delete=models.CASCADE, related_name="pre_deadlines")
    due_date = models.DateField(_("Vorfrist"))
    note = models.CharField(_("note"), max_length=NOTE_MAX, blank=True)
    # When its reminder went out (the reminder jobs send each one once).
    reminded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("Vorfrist")
        verbose_name_plural = _("Vorfristen")
        ordering = ["due_date", "id"]
        indexes = [models.Index(fields=["due_date", "event"], name="cal_predeadline_due")]

    def __str__(self) -> str:
        return f"{self.event} · {self.due_date:%d.%m.%Y}"


class DeadlineChange(models.Model):
    """One line of the Fristenbuch: who changed what on a Frist, when, from what to what, and why.
    Written by the services in the same transaction as the change; never edited or deleted."""

    event = models.ForeignKey(CalendarEvent, on_delete=models.CASCADE, related_name="history")
    at = models.DateTimeField(_("at"), default=timezone.now)
    actor = user_link(_("by"))
    # Who acted when it was not a person (an API key's service principal, a job): its name.
    actor_label = models.CharField(max_length=200, blank=True)
    field = models.CharField(_("field"), max_length=40)
    old = models.TextField(_("before"), blank=True)
    new = models.TextField(_("after"), blank=True)
    reason = models.CharField(_("reason"), max_length=REASON_MAX, blank=True)
    # A reason the system wrote (not a person's words) is kept as a code with its values and shown
    # in the reader's language; `reason` then holds the writer's wording for search and old readers.
    reason_code = models.CharField(_("reason code"), max_length=60, blank=True, db_default="")
    reason_params = models.JSONField(_("reason values"), default=dict, blank=True, db_default={})

    class Meta:
        verbose_name = _("Fristenbuch entry")
        verbose_name_plural = _("Fristenbuch")
        ordering = ["at", "id"]
        indexes = [
            models.Index(fields=["event", "at"], name="cal_history_event"),
            models.Index(fields=["at"], name="cal_history_at"),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} {self.field}: {self.old} → {self.new}"

    # Field and status are stored as codes; pages show them in the viewer's language.
    @property
    def field_shown(self) -> str:
        from apps.calendar.fristenbuch import field_label

        return field_label(self.field)

    @property
    def old_shown(self) -> str:
        from apps.calendar.fristenbuch import shown_value

        return shown_value(self.field, self.old)

    @property
    def new_shown(self) -> str:
        from apps.calendar.fristenbuch import shown_value

        return shown_value(self.field, self.new)

    @property
    def reason_shown(self) -> str:
        from apps.calendar.reasons import shown_reason

        return shown_reason(self.reason_code, self.reason_params, self.reason)


class CalendarFeedToken(models.Model):
    """A secret that lets Outlook or Apple Calendar read one person's calendar without a login.
    Only its SHA-256 is stored; the token itself is shown once."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feeds"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("calendar feed token")
        verbose_name_plural = _("calendar feed tokens")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.user} · {self.prefix}…"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
