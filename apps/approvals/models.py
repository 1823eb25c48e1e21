"""Freigaben: what an agent may do with a tool without asking, the calls that wait for a person,
standing approvals, and the one-time tokens for destructive actions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import user_link
from apps.core.models import CreatedAt, UpdatedAt


class Policy(CreatedAt, UpdatedAt):
    """The rights of one agent (the main copilot, or a specialist) for one tool: `allowed`
    operations run without asking (`*`: every operation not forbidden), `forbidden` ones are never
    offered nor run, everything else is staged for a person. With a group, the row applies to
    that group's members only (e.g. forbid a tool for the main copilot for trainees)."""

    specialist_id = models.PositiveIntegerField(_("specialist"), null=True, blank=True)
    group = models.ForeignKey(
        "auth.Group",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("group"),
    )
    tool = models.CharField(_("tool"), max_length=100)
    allowed = models.JSONField(_("allowed"), default=list, blank=True)
    forbidden = models.JSONField(_("forbidden"), default=list, blank=True)

    class Meta:
        verbose_name = _("approval policy")
        verbose_name_plural = _("approval policies")
        ordering = ["tool", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["specialist_id", "group", "tool"],
                name="approvals_policy_one_per_agent_group_tool",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return self.tool


class StagedCall(CreatedAt):
    """A tool call that waits for a person's decision, with its exact validated arguments."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        APPROVED = "approved", _("approved")
        EXECUTED = "executed", _("executed")
        FAILED = "failed", _("failed")
        DENIED = "denied", _("denied")
        EXPIRED = "expired", _("expired")
        RECORDED = "recorded", _("recorded (nobody was present)")

    class Reason(models.TextChoices):
        DEFAULT = "default", _("the tool asks by default")
        POLICY = "policy", _("not allowed without asking")
        FOREIGN_CONTENT = "foreign_content", _("the run has read outside content")
        AGENT_CHANGE = "agent_change", _("changes to agents are always approved one by one")

    tool = models.CharField(_("tool"), max_length=100)
    operation = models.CharField(_("operation"), max_length=60)
    arguments = models.JSONField(_("arguments"), default=dict)
    arguments_digest = models.CharField(max_length=64)
    preview = models.TextField(_("preview"))
    reason = models.CharField(_("reason"), max_length=20, choices=Reason.choices, default=Reason.DEFAULT)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.PENDING)
    # Who the call acts as (the principal) and who decides (the person behind it).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    service_principal = models.ForeignKey(
        "accounts.ServicePrincipal", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    specialist_id = models.PositiveIntegerField(_("specialist"), null=True, blank=True)
    surface = models.CharField(_("surface"), max_length=10, default="native")
    api_key = models.CharField(_("API key"), max_length=40, blank=True)
    run = models.ForeignKey(
        "agent.Run", on_delete=models.CASCADE, null=True, blank=True, related_name="staged_calls"
    )
    call_id = models.CharField(_("tool call id"), max_length=100, blank=True)
    expires_at = models.DateTimeField(_("expires"))
    decided_by = user_link(_("decided by"))
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    result = models.JSONField(_("result"), default=dict, blank=True)

    class Meta:
        verbose_name = _("staged call")
        verbose_name_plural = _("staged calls")
        ordering = ["-id"]
        indexes = [
            models.Index(
                fields=["expires_at"], name="approvals_pending_expiry", condition=models.Q(status="pending")
            )
        ]

    def __str__(self) -> str:
        return f"{self.tool} ({self.status})"


class StandingApproval(CreatedAt):
    """Dauerfreigabe: exactly one agent + tool + operation, optionally narrowed to one object (a
    board, folder or client), with an expiry; revocable."""

    specialist_id = models.PositiveIntegerField(_("specialist"), null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="standing_approvals",
        verbose_name=_("for"),
    )
    tool = models.CharField(_("tool"), max_length=100)
    operation = models.CharField(_("operation"), max_length=60)
    scope_kind = models.CharField(_("narrowed to"), max_length=20, blank=True)
    scope_id = models.PositiveIntegerField(_("object"), null=True, blank=True)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    granted_by = user_link(_("granted by"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    revoked_by = user_link(_("revoked by"))

    class Meta:
        verbose_name = _("standing approval")
        verbose_name_plural = _("standing approvals")
        ordering = ["-id"]
        indexes = [
            # The approval step's lookup for a call that would be staged.
            models.Index(
                fields=["user", "tool", "operation"],
                name="approvals_standing_lookup",
                condition=models.Q(revoked_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"{self.tool}:{self.operation}"


class ApprovalToken(CreatedAt):
    """A one-time token for a destructive, irreversible action: bound to a user, a chat and the
    exact action; used up atomically together with the person's message that typed the phrase."""

    jti = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session = models.ForeignKey("agent.ChatSession", on_delete=models.CASCADE, related_name="+")
    tool = models.CharField(_("tool"), max_length=100)
    action_digest = models.CharField(max_length=64)
    phrase = models.CharField(_("phrase"), max_length=200)
    expires_at = models.DateTimeField(_("expires"))
    used_at = models.DateTimeField(_("used"), null=True, blank=True)
    used_message = models.OneToOneField(
        "agent.Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("approval token")
        verbose_name_plural = _("approval tokens")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.tool} ({self.jti[:8]})"
