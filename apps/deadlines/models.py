from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.models import Timestamped

CODE_MAX = 60
NAME_MAX = 120
LEGAL_BASIS_MAX = 120


class DeadlineRule(Timestamped):
    """A kind of Frist an office computes often: "Einspruch: one month from Bekanntgabe, § 355 AO".

    Shipped with common rules (data migration 0002); admins add and edit rules in the admin
    (through `services.save_rule`). A rule is deactivated, never deleted, once Fristen name it."""

    class TriggerKind(models.TextChoices):
        BEKANNTGABE = "bekanntgabe", _("Notification (Bekanntgabe)")
        ZUSTELLUNG = "zustellung", _("Service (Zustellung)")
        VERKUENDUNG = "verkuendung", _("Pronouncement (Verkündung)")

    class Unit(models.TextChoices):
        DAYS = "days", _("days")
        WEEKS = "weeks", _("weeks")
        MONTHS = "months", _("months")
        YEARS = "years", _("years")

    # How bad missing a Frist would be; the calendar's Fristen use the same scale
    # (apps.calendar.models.CalendarEvent.Criticality).
    class Criticality(models.TextChoices):
        LOW = "low", _("Low")
        NORMAL = "normal", _("Normal")
        HIGH = "high", _("High")
        CRITICAL = "critical", _("Critical")

    code = models.SlugField(_("code"), max_length=CODE_MAX, unique=True)
    name = models.CharField(
        _("name"), max_length=NAME_MAX, help_text=_('As it reads in an explanation: "Einspruchsfrist".')
    )
    trigger_kind = models.CharField(
        _("triggering event"), max_length=20, choices=TriggerKind.choices, default=TriggerKind.BEKANNTGABE
    )
    amount = models.PositiveSmallIntegerField(_("duration"))
    unit = models.CharField(_("unit"), max_length=10, choices=Unit.choices)
    legal_basis = models.CharField(_("legal basis"), max_length=LEGAL_BASIS_MAX)
    posting_fiction = models.BooleanField(
        _("posting fiction applies"),
        default=False,
        help_text=_(
            "A posted act counts as notified on the fourth day after posting (§ 122 Abs. 2 AO, § 41 Abs. 2 VwVfG)."
        ),
    )
    fiction_basis = models.CharField(
        _("norm of the posting fiction"),
        max_length=LEGAL_BASIS_MAX,
        blank=True,
        help_text=_("Empty: § 122 Abs. 2 Nr. 1 AO for tax rules, § 41 Abs. 2 VwVfG otherwise."),
    )
    shift_basis = models.CharField(
        _("norm of the weekend/holiday shift"),
        max_length=LEGAL_BASIS_MAX,
        blank=True,
        help_text=_(
            "Empty: § 108 Abs. 3 AO for tax rules, § 222 Abs. 2 ZPO for court procedure, § 193 BGB otherwise."
        ),
    )
    default_pre_deadline_days = models.PositiveSmallIntegerField(
        _("default Vorfrist (days before)"), default=7
    )
    default_criticality = models.CharField(
        _("default criticality"), max_length=10, choices=Criticality.choices, default=Criticality.HIGH
    )
    active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["name", "code"]
        verbose_name = _("deadline rule")
        verbose_name_plural = _("deadline rules")

    def __str__(self) -> str:
        return f"{self.name} ({self.legal_basis})"
