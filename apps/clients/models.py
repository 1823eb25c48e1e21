"""Mandanten (clients) and their cases (Akten). Office-wide: every staff user and every active
service principal sees them."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import user_link
from apps.core.db.model_fields import german_search, search_index
from apps.core.models import Timestamped, Versioned
from apps.core.records import IdUrl
from apps.llm.models import neutralize_always_field

# The pages of one client and one case (`ClientOut.url`, `CaseOut.url`, the refs of other domains).
detail_url = IdUrl("clients:detail")
case_url = IdUrl("clients:case")
NAME_MAX = 200
NOTES_MAX = 20_000
SUBJECT_MAX = 300


class Client(Versioned, Timestamped):
    class Kind(models.TextChoices):
        PERSON = "person", _("Person")
        COMPANY = "company", _("Company")

    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        INACTIVE = "inactive", _("Inactive")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.PERSON)
    name = models.CharField(_("name"), max_length=NAME_MAX)
    client_number = models.CharField(_("client number"), max_length=40, unique=True)
    tax_number = models.CharField(_("tax number"), max_length=40, blank=True)
    email = models.CharField(_("e-mail"), max_length=254, blank=True)
    phone = models.CharField(_("phone"), max_length=60, blank=True)
    street = models.CharField(_("street"), max_length=200, blank=True)
    postal_code = models.CharField(_("postal code"), max_length=20, blank=True)
    city = models.CharField(_("city"), max_length=120, blank=True)
    country = models.CharField(_("country"), max_length=80, blank=True, default="Deutschland")
    responsible = user_link(_("responsible"), related_name="responsible_clients")
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.ACTIVE)
    notes = models.TextField(_("notes"), blank=True)
    neutralize_always = neutralize_always_field(
        _(
            "Whenever the copilot or a model call touches this client's data (its cases and "
            "documents included), names and numbers are replaced before anything reaches a model "
            "provider, even when neutralization is switched off for the office."
        )
    )
    # German full-text index over what people search for.
    search = german_search("name", "client_number", "tax_number", "city", "email")

    class Meta:
        verbose_name = _("client")
        verbose_name_plural = _("clients")
        ordering = ["name", "id"]
        indexes = [
            models.Index(fields=["status", "name"], name="client_status_name"),
            search_index("client_search"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.client_number})"

    @property
    def url(self) -> str:
        return detail_url(self.pk)


class Case(Versioned, Timestamped):
    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    reference = models.CharField(_("reference"), max_length=60, unique=True)
    subject = models.CharField(_("subject"), max_length=SUBJECT_MAX)
    client = models.ForeignKey(
        Client, on_delete=models.PROTECT, related_name="cases", verbose_name=_("client")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.OPEN)
    responsible = user_link(_("responsible"), related_name="responsible_cases")
    # Set by the service when the case is closed, cleared when it is reopened.
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    closed_by = user_link(_("closed by"))
    neutralize_always = neutralize_always_field(
        _(
            "Model calls that touch this case are neutralized even when neutralization is "
            "switched off for the office (a case of a client marked so always is)."
        )
    )

    class Meta:
        verbose_name = _("case")
        verbose_name_plural = _("cases")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["client", "status"], name="case_client_status")]

    def __str__(self) -> str:
        return f"{self.reference} {self.subject}"

    @property
    def url(self) -> str:
        return case_url(self.pk)


def client_link(related_name: str, *, on_delete=models.PROTECT, **options) -> models.ForeignKey:
    """The optional Mandant a row concerns. PROTECT by default: a client with linked rows is
    retired (status inactive), never deleted, so no row silently loses whom it concerns."""
    return models.ForeignKey(
        Client,
        null=True,
        blank=True,
        on_delete=on_delete,
        related_name=related_name,
        verbose_name=_("client"),
        **options,
    )


def case_link(related_name: str, *, on_delete=models.PROTECT) -> models.ForeignKey:
    """The optional Akte a row concerns (its client is the row's client); the case page lists it."""
    return models.ForeignKey(
        Case, null=True, blank=True, on_delete=on_delete, related_name=related_name, verbose_name=_("case")
    )
