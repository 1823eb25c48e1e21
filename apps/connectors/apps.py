from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ToolFamily


class ConnectorsConfig(DomainApp):
    """Connectors: the Database and FileRW tools over the office's own databases and file
    shares, configured per agent (the main copilot or a specialist) in named configurations."""

    name = "apps.connectors"
    label = "connectors"
    verbose_name = _("Connectors")
    url_module = ""
    api_urls = ""
    tool_families = [ToolFamily("connectors", module=None, start=False)]
    extends = {"core.error_codes": ["apps.connectors.errors.NOTICE_CODES"]}
