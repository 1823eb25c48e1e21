"""Kalender: office events and Fristen (deadlines), recurring series, reminders, ICS feed tokens."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import CreatedBy
from apps.core.models import Timestamped, Versioned

TITLE_MAX = 300
DESCRIPTION_MAX = 20_000
RRULE_MAX = 500


class CalendarEvent(CreatedBy, Versioned, Timestamped):
    class Kind(models.TextChoices):
        EVENT = "event", _("Appointment")
        DEADLINE = "deadline", _("Deadline")

    class Visibility(models.TextChoices):
        SHARED = "shared", _("Office calendar")
        PRIVATE = "private", _("Private")

    class Criticality(models.TextChoices):
        LOW = "low", _("Low")
        NORMAL = "normal", _("Normal")
        HIGH = "high", _("High")
        CRITICAL = "critical", _("Critical")

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
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="owned_calendar_events",
    )
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
    client = models.ForeignKey(
        "clients.Client",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="calendar_events",
        verbose_name=_("client"),
        db_index=False,
    )
    # Recurrence (RFC 5545 RRULE, always bounded by COUNT or UNTIL) and the end of its last occurrence.
    rrule = models.CharField(_("recurrence rule"), max_length=RRULE_MAX, blank=True)
    recurrence_end = models.DateTimeField(null=True, blank=True)
    # Reminders: `remind_at` is the next reminder moment (derived by the services), `reminded_at`
    # when it was sent.
    remind_minutes_before = models.PositiveIntegerField(_("reminder (minutes before)"), null=True, blank=True)
    remind_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)
    search = models.GeneratedField(
        expression=SearchVector("title", "description", "location", config="german"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

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
            GinIndex(fields=["search"], name="cal_event_search"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(end__gte=F("start")), name="cal_event_end_after_start"),
            models.CheckConstraint(
                condition=Q(visibility="shared") | Q(owner__isnull=False), name="cal_event_private_has_owner"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def is_deadline(self) -> bool:
        return self.kind == self.Kind.DEADLINE

    @property
    def is_recurring(self) -> bool:
        return bool(self.rrule)


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
