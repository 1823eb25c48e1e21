"""The review app keeps no data of its own: every item and every decision (the audit) belongs to
its domain. `ReviewQueue` is a table-less model so the admin can list the queue as one entry."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ReviewQueue(models.Model):
    class Meta:
        managed = False
        db_table = "review_queue_no_table"
        verbose_name = _("review queue")
        verbose_name_plural = _("review queue")
        default_permissions = ()

    def __str__(self) -> str:
        return str(self._meta.verbose_name)
