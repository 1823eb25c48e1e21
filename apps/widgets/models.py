"""Widgets (formerly "Mini Apps"): small dashboard cards a person installs, usually through the
copilot. Each has a structured definition of one type and the latest data it shows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.models import Timestamped, Versioned

TITLE_MAX = 120
SLUG_MAX = 80
DESCRIPTION_MAX = 500


class Widget(Versioned, Timestamped):
    class Type(models.TextChoices):
        STATS = "stats", _("Key figures")
        LIST = "list", _("List")
        TABLE = "table", _("Table")
        NOTICE = "notice", _("Notice")
        SECTIONS = "sections", _("Sections")

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="widgets")
    slug = models.SlugField(_("slug"), max_length=SLUG_MAX)
    title = models.CharField(_("title"), max_length=TITLE_MAX)
    description = models.CharField(_("description"), max_length=DESCRIPTION_MAX, blank=True)
    type = models.CharField(_("type"), max_length=10, choices=Type.choices)
    definition = models.JSONField(_("definition"), default=dict)
    # True while the layout was derived from the data: newer, richer data may then upgrade it.
    definition_inferred = models.BooleanField(_("layout derived from the data"), default=False)
    data = models.JSONField(_("latest data"), null=True, blank=True)
    data_updated_at = models.DateTimeField(_("data updated"), null=True, blank=True)
    show_on_dashboard = models.BooleanField(_("show on the dashboard"), default=True)
    position = models.IntegerField(_("position"), default=0)

    class Meta:
        verbose_name = _("widget")
        verbose_name_plural = _("widgets")
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "slug"], name="widgets_slug_per_owner")]
        indexes = [models.Index(fields=["owner", "position"], name="widget_owner_position")]

    def __str__(self) -> str:
        return self.title

    # The seed contract's names for the layout and the data (what `WidgetOut` reads).
    @property
    def widget_definition(self) -> dict:
        return self.definition

    @property
    def latest_data(self) -> object:
        return self.data
