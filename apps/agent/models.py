"""Chat sessions, messages, runs and run events; Mixture-of-Agents presets. The providers and
models themselves belong to the model layer (`apps.llm.models`)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.llm.models import ModelConfig


class ChatSession(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_sessions")
    title = models.CharField(_("title"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("chat session")
        verbose_name_plural = _("chat sessions")
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return self.title or f"#{self.pk}"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user", _("user")
        ASSISTANT = "assistant", _("assistant")
        TOOL = "tool", _("tool")
        SYSTEM = "system", _("system")

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="messages")
    run = models.ForeignKey("Run", on_delete=models.SET_NULL, null=True, blank=True, related_name="messages")
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)
    content = models.TextField(_("content"), blank=True)
    tool_calls = models.JSONField(_("tool calls"), default=list, blank=True)
    tool_call_id = models.CharField(_("tool call id"), max_length=100, blank=True)
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:60]}"


class MoAPreset(models.Model):
    """Mixture of Agents: reference models answer in parallel, the aggregator writes the answer.
    Offered as the virtual model `moa/<slug>` wherever a model is chosen."""

    slug = models.SlugField(_("slug"), max_length=60, unique=True)
    name = models.CharField(_("name"), max_length=100)
    reference_models = models.ManyToManyField(
        ModelConfig, related_name="moa_references", verbose_name=_("reference models")
    )
    aggregator = models.ForeignKey(
        ModelConfig, on_delete=models.PROTECT, related_name="moa_aggregations", verbose_name=_("aggregator")
    )
    prompt = models.TextField(
        _("aggregator prompt"),
        blank=True,
        help_text=_("Instruction for the aggregator; empty for the built-in one."),
    )
    enabled = models.BooleanField(_("enabled"), default=True)

    class Meta:
        verbose_name = _("Mixture of Agents preset")
        verbose_name_plural = _("Mixture of Agents presets")
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.virtual_id

    @property
    def virtual_id(self) -> str:
        return f"moa/{self.slug}"


class Run(models.Model):
    class Kind(models.TextChoices):
        CHAT = "chat", _("chat (human-facing)")
        BACKGROUND = "background", _("background")

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        CANCELLING = "cancelling", _("cancelling")
        CANCELLED = "cancelled", _("cancelled")
        COMPLETED = "completed", _("completed")
        FAILED = "failed", _("failed")
        MAX_ROUNDS_REACHED = "max_rounds_reached", _("round limit reached")
        BUDGET_EXCEEDED = "budget_exceeded", _("budget exceeded")

    FINAL = frozenset({"cancelled", "completed", "failed", "max_rounds_reached", "budget_exceeded"})

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="runs")
    model_config = models.ForeignKey(ModelConfig, on_delete=models.SET_NULL, null=True, blank=True)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.QUEUED)
    model_label = models.CharField(_("model"), max_length=300, blank=True)
    moa_preset = models.ForeignKey(
        MoAPreset, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.CHAT)
    require_neutralization = models.BooleanField(
        _("neutralization required"),
        default=False,
        help_text=_("Set when a data source of this run requires it, whatever the instance setting."),
    )
    max_rounds = models.PositiveSmallIntegerField(
        _("max rounds"), default=25, validators=[MinValueValidator(1), MaxValueValidator(100)]
    )
    budget = models.DecimalField(_("cost budget"), max_digits=10, decimal_places=4, null=True, blank=True)
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True)
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=0)
    prompt_tokens = models.PositiveIntegerField(_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(_("completion tokens"), default=0)
    cost = models.DecimalField(_("cost"), max_digits=12, decimal_places=6, default=Decimal("0"))
    error_code = models.CharField(_("error code"), max_length=100, blank=True)
    error_message = models.TextField(_("error message"), blank=True)
    diagnostics = models.JSONField(_("diagnostics"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("run")
        verbose_name_plural = _("runs")
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(max_rounds__gte=1, max_rounds__lte=100), name="agent_run_max_rounds_range"
            )
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} ({self.status})"

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL


class RunEvent(models.Model):
    class Kind(models.TextChoices):
        TURN = "turn", _("turn")
        TOKEN = "token", _("token")
        TOOL_STARTED = "tool_started", _("tool started")
        TOOL_PROGRESS = "tool_progress", _("tool progress")
        TOOL_FINISHED = "tool_finished", _("tool finished")
        TODO = "todo", _("todo list")
        SUMMARY = "summary", _("summary")
        STATUS = "status", _("status")
        FINAL = "final", _("final")

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField(_("sequence"))
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    payload = models.JSONField(_("payload"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("run event")
        verbose_name_plural = _("run events")
        ordering = ["run_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="agent_run_event_seq")]

    def __str__(self) -> str:
        return f"{self.run_id}#{self.seq} {self.kind}"


class InferenceUsage(models.Model):
    """One provider call of the stateless `/api/v1/inference/…` passthrough (no run; a client's
    tools pass through, none runs here; a `moa/<slug>` request makes one row per model): who,
    which model, how much."""

    api_key = models.ForeignKey(
        "apikeys.ApiKey", on_delete=models.SET_NULL, null=True, blank=True, related_name="inference_usage"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    model_config = models.ForeignKey(ModelConfig, on_delete=models.SET_NULL, null=True, blank=True)
    model_label = models.CharField(_("model"), max_length=300, blank=True)
    prompt_tokens = models.PositiveIntegerField(_("prompt tokens"), default=0)
    completion_tokens = models.PositiveIntegerField(_("completion tokens"), default=0)
    cost = models.DecimalField(_("cost"), max_digits=12, decimal_places=6, default=Decimal("0"))
    stream = models.BooleanField(_("streamed"), default=False)
    ok = models.BooleanField(_("succeeded"), default=True)
    error_code = models.CharField(_("error code"), max_length=100, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("inference usage")
        verbose_name_plural = _("inference usage")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.model_label} {self.prompt_tokens}+{self.completion_tokens}"
