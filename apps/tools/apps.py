from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ToolFamily


class ToolsConfig(DomainApp):
    name = "apps.tools"
    verbose_name = _("Tools")
    tool_families = [ToolFamily("core", start=True)]
    extends = {"core.error_codes": ["apps.tools.errors.ENVELOPE_CODES"]}

    def ready(self) -> None:
        from apps.tools.registry import autodiscover

        autodiscover()
