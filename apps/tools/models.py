from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import service_link, user_link
from apps.core.models import UpdatedAt


class ModuleInstall(UpdatedAt):
    """Overrides the instance's module install policy for one module."""

    slug = models.SlugField(_("module"), max_length=64, unique=True)
    installed = models.BooleanField(_("installed"), default=True)

    class Meta:
        verbose_name = _("module installation")
        verbose_name_plural = _("module installations")
        ordering = ["slug"]

    def __str__(self) -> str:
        return f"{self.slug}: {'on' if self.installed else 'off'}"


class ToolExecution(models.Model):
    """Compact audit row per tool call. Holds a digest of the arguments, never their content."""

    tool = models.CharField(_("tool"), max_length=100, db_index=True)
    user = user_link()
    service_principal = service_link()
    surface = models.CharField(_("surface"), max_length=16)
    ok = models.BooleanField(_("ok"))
    code = models.CharField(_("code"), max_length=100, blank=True)
    duration_ms = models.FloatField(_("duration (ms)"))
    run_id = models.CharField(_("run"), max_length=64, blank=True)
    args_digest = models.CharField(_("arguments digest"), max_length=64)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("tool execution")
        verbose_name_plural = _("tool executions")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.tool} ({'ok' if self.ok else self.code})"


class IdempotentCall(models.Model):
    """First result of an API call with an idempotency key, replayed for repeats."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    payload_digest = models.CharField(max_length=64)
    result = models.JSONField(null=True)
    http_status = models.PositiveSmallIntegerField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="tools_idempotent_call_once")]

    def __str__(self) -> str:
        return self.key
