"""The dashboard owns no rows; this model exists only to declare its permission (no table)."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class OfficeDay(models.Model):
    """Holder of "may see the whole office's day" (the Büroleitung view of "Heute"). Admins
    have it through their role; others get it as `dashboard.view_office_day`."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [("view_office_day", _("Can see the whole office's day"))]
        verbose_name = _("office day")

    def __str__(self) -> str:
        return str(self._meta.verbose_name)
