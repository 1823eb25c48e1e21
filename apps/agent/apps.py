from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, ToolFamily


class AgentConfig(DomainApp):
    name = "apps.agent"
    verbose_name = _("Copilot")
    api_tag = "chat"
    navigation = [NavEntry("chat", _("Chat"), "chat:index", order=10)]
    tool_families = [ToolFamily("agent", start=True)]
    extends = {"knowledge.sources": ["apps.agent.history_context.source"]}  # history:<id> in context_search
