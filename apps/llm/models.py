"""Providers and the models the copilot and the domains may call.

The tables keep the names they had when these models lived in the agent app (`agent_provider`,
`agent_modelconfig`): moving the code changed no data."""

from __future__ import annotations

from decimal import Decimal

from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.crypto import EncryptedTextField
from apps.core.models import CreatedAt


def neutralize_always_field(help_text) -> models.BooleanField:
    """The "always neutralize" mark of a data source (client, case, document folder): model calls
    that touch its data are neutralized even when the office switch is off (apps.llm.neutralize)."""
    return models.BooleanField(
        _("always neutralize"),
        default=False,
        db_default=False,  # rows written by older code (or historical migration states) get it
        help_text=help_text,
    )


def model_choice(verbose_name, help_text) -> models.ForeignKey:
    """The model an admin chose for a job (extraction, curation …); empty: the job does not run.
    Deleting the model empties the choice."""
    return models.ForeignKey(
        "llm.ModelConfig",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=verbose_name,
        help_text=help_text,
    )


REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")


class Provider(CreatedAt):
    class Kind(models.TextChoices):
        OPENAI = "openai", "OpenAI"
        OPENAI_COMPATIBLE = "openai_compatible", _("OpenAI-compatible")
        OLLAMA = "ollama", "Ollama"
        AZURE = "azure", "Azure OpenAI"

    name = models.CharField(_("name"), max_length=100, unique=True)
    kind = models.CharField(_("type"), max_length=20, choices=Kind.choices, default=Kind.OPENAI)
    base_url = models.URLField(_("base URL"), max_length=300, blank=True)
    api_key = EncryptedTextField(_("API key"), blank=True, default="")
    enabled = models.BooleanField(_("enabled"), default=True)

    class Meta:
        db_table = "agent_provider"
        verbose_name = _("model provider")
        verbose_name_plural = _("model providers")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ModelConfig(models.Model):
    provider = models.ForeignKey(
        Provider, on_delete=models.CASCADE, related_name="models", verbose_name=_("provider")
    )
    model_id = models.CharField(_("model id"), max_length=200)
    display_name = models.CharField(_("display name"), max_length=200, blank=True)
    context_window = models.PositiveIntegerField(_("context window (tokens)"), default=128_000)
    input_price_per_million = models.DecimalField(
        _("input price per million tokens"), max_digits=10, decimal_places=4, default=Decimal("0")
    )
    output_price_per_million = models.DecimalField(
        _("output price per million tokens"), max_digits=10, decimal_places=4, default=Decimal("0")
    )
    supports_tools = models.BooleanField(_("supports tools"), default=True)
    supports_vision = models.BooleanField(_("supports vision"), default=False)
    supports_reasoning = models.BooleanField(_("reasoning model"), default=False)
    probe_failed = models.BooleanField(_("capability probe failed"), default=False)
    probed_at = models.DateTimeField(_("last probed"), null=True, blank=True)
    probe_error = models.CharField(
        _("probe result"),
        max_length=300,
        blank=True,
        help_text=_("Why the last capability probe failed or what it found (never contains the key)."),
    )

    class Meta:
        db_table = "agent_modelconfig"
        verbose_name = _("model")
        verbose_name_plural = _("models")
        ordering = ["provider__name", "model_id"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "model_id"], name="agent_model_per_provider")
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return self.display_name or f"{self.provider.name}/{self.model_id}"

    @property
    def is_reasoning(self) -> bool:
        return self.supports_reasoning or self.model_id.lower().startswith(REASONING_PREFIXES)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> Decimal:
        million = Decimal(1_000_000)
        return (
            Decimal(prompt_tokens) * self.input_price_per_million
            + Decimal(completion_tokens) * self.output_price_per_million
        ) / million
