from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ToolsConfig(AppConfig):
    name = "apps.tools"
    verbose_name = _("Tools")

    def ready(self) -> None:
        from apps.tools.registry import autodiscover

        autodiscover()
