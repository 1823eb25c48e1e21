from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.core.models import CreatedAt


class Notification(CreatedAt):
    """Something a person should notice (a reminder, a finished job, an approval request).
    The id is the cursor external devices poll with."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(_("kind"), max_length=64)
    title = models.CharField(_("title"), max_length=200)
    body = models.TextField(_("text"), blank=True)
    url = models.CharField(_("link"), max_length=500, blank=True)
    data = models.JSONField(_("data"), default=dict, blank=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    # Idempotency: a job delivered twice (jobs run at least once) sends one notification per
    # person and key, e.g. "deadline.due:42:2026-12-01". Empty: no deduplication.
    key = models.CharField(_("key"), max_length=200, blank=True, default="", db_default="")

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        ordering = ["id"]
        indexes = [
            models.Index(fields=["user", "id"], name="notification_user_cursor"),
            models.Index(
                fields=["user", "id"], condition=Q(read_at__isnull=True), name="notification_unread"
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "key"], condition=~Q(key=""), name="notification_once_per_key"
            )
        ]

    def __str__(self) -> str:
        return self.title
