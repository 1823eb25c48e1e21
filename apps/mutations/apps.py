from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MutationsConfig(AppConfig):
    name = "apps.mutations"
    verbose_name = _("Live updates")
