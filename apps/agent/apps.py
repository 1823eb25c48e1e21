from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, PeriodicJob, ToolFamily


class AgentConfig(DomainApp):
    name = "apps.agent"
    verbose_name = _("Copilot")
    api_tag = "chat"
    navigation = [NavEntry("chat", _("Chat"), "chat:index", order=10)]
    tool_families = [ToolFamily("agent", start=True)]
    # Finishes runs whose worker died within a minute (lease + one sweep; apps.agent.leases).
    periodic_jobs = [PeriodicJob("Copilot: lost runs", "apps.agent.jobs.sweep_lost_runs", every_seconds=15)]
    extends = {"knowledge.sources": ["apps.agent.history_context.source"]}  # history:<id> in context_search
