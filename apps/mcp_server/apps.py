from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class McpServerConfig(DomainApp):
    """The MCP server (Streamable HTTP at /mcp/): the office's memory and tools for external agents."""

    name = "apps.mcp_server"
    label = "mcp_server"
    verbose_name = _("MCP server")
