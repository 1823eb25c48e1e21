"""Credentials for machines: instance API keys (admin-made, scoped, bound to their creator) and
device tokens (a member's own mobile/desktop app sessions).

Only a SHA-256 hash of each secret is stored. The secrets are 256-bit random values, so a plain
fast hash is enough (no password stretching needed) and lookups stay one indexed query by prefix.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import user_link


class Scope(models.TextChoices):
    """What an API key may be used for. `tools:execute` is the high-privilege grant: it runs any
    tool the creator may run; the others open one narrow endpoint family each."""

    TOOLS_EXECUTE = "tools:execute", _("Execute tools as the key's creator (high privilege)")
    MEMORY_READ = "memory:read", _("Read approved memory")
    MEMORY_WRITE = "memory:write", _("Store memory (reviewed like manual memory)")
    INFERENCE_EXECUTE = "inference:execute", _("Stateless model inference passthrough")
    NOTIFICATIONS_READ = "notifications:read", _("Poll notifications (read-only)")
    USAGE_READ = "usage:read", _("Read subscription usage")


# Scopes that act for the office, not just for the creator: they work only while the key's
# creator is an administrator, checked on every request (`ApiKeyScopes`). The others reach only
# the creator's own notifications and memory, which the member's own device token reaches too, so
# they keep working for a creator who is no longer an administrator.
ADMIN_SCOPES = frozenset({Scope.TOOLS_EXECUTE.value, Scope.INFERENCE_EXECUTE.value, Scope.USAGE_READ.value})


class Credential(models.Model):
    """What API keys and device tokens share: the public prefix (shown in lists, logs and the
    admin), when the credential was made, last used and revoked."""

    prefix = models.CharField(_("prefix"), max_length=16, unique=True, editable=False)
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def is_active(self) -> bool:
        return not self.is_revoked


class ApiKey(Credential):
    """An instance API key. It acts as its creator (`created_by`) and only within its scopes.

    The full key is `<prefix>.<secret>`, e.g. `clp_k3j9x2ab.<43 url-safe chars>`; the prefix is a
    public identifier (shown in lists, logs and the admin), the secret is shown once."""

    name = models.CharField(_("name"), max_length=100)
    secret_hash = models.CharField(_("secret hash"), max_length=64, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_keys",
        verbose_name=_("creator"),
        help_text=_("The key acts as this user."),
    )
    scopes = ArrayField(
        models.CharField(max_length=32, choices=Scope.choices), verbose_name=_("scopes"), default=list
    )
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    revoked_by = user_link(_("revoked by"))

    class Meta(Credential.Meta):
        verbose_name = _("API key")
        verbose_name_plural = _("API keys")
        constraints = [
            models.CheckConstraint(
                condition=Q(scopes__contained_by=Scope.values), name="apikeys_apikey_known_scopes"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})"

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def is_active(self) -> bool:
        return not self.is_revoked and not self.is_expired

    @property
    def status(self) -> str:
        """One word for lists: revoked wins over expired."""
        if self.is_revoked:
            return "revoked"
        if self.is_expired:
            return "expired"
        return "active"

    def has_scopes(self, required: list[str] | tuple[str, ...] | set[str]) -> bool:
        return set(required) <= set(self.scopes)

    def missing_scopes(self, required: list[str] | tuple[str, ...] | set[str]) -> list[str]:
        return [scope for scope in required if scope not in self.scopes]

    def scope_labels(self) -> list[str]:
        return [str(Scope(s).label) if s in Scope.values else s for s in self.scopes]


class DeviceToken(Credential):
    """A member's own app login (`Authorization: Token <token>`): acts as the member with their full
    rights, like a browser session; revocable by the member per device."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="device_tokens",
        verbose_name=_("user"),
    )
    device_name = models.CharField(_("device"), max_length=100)
    token_hash = models.CharField(_("token hash"), max_length=64, editable=False)

    class Meta(Credential.Meta):
        verbose_name = _("device token")
        verbose_name_plural = _("device tokens")
        indexes = [
            models.Index(fields=["user", "revoked_at"], name="apikeys_devtok_user_active"),
        ]

    def __str__(self) -> str:
        return f"{self.device_name} ({self.prefix})"


class RateWindow(models.Model):
    """The current rate-limit window of one API key: when it started and how many requests it
    has seen. Counted by one atomic upsert per request (`services.count_api_request`), so
    parallel requests with the same key can never overwrite each other's count."""

    api_key = models.OneToOneField(
        ApiKey, on_delete=models.CASCADE, primary_key=True, related_name="+", verbose_name=_("API key")
    )
    started_at = models.DateTimeField(_("window started"))
    hits = models.PositiveIntegerField(_("requests in the window"))

    class Meta:
        verbose_name = _("rate-limit window")
        verbose_name_plural = _("rate-limit windows")

    def __str__(self) -> str:
        return f"{self.api_key_id}: {self.hits} since {self.started_at:%H:%M:%S}"
