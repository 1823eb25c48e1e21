from collections.abc import Callable

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint, NavEntry, PeriodicJob, ToolFamily


class AgentConfig(DomainApp):
    name = "apps.agent"
    verbose_name = _("Copilot")
    api_tag = "chat"
    navigation = [NavEntry("chat", _("Chat"), "chat:index", order=10)]
    tool_families = [ToolFamily("agent", start=True)]
    # Finishes runs whose worker died within a minute (lease + one sweep; apps.agent.leases).
    periodic_jobs = [
        PeriodicJob(
            "Copilot: lost runs",
            "apps.agent.jobs.sweep_lost_runs",
            every_seconds=getattr(settings, "CLAPILOT_RUN_SWEEP_SECONDS", 15),
        )
    ]
    extension_points = {
        "context_providers": ExtensionPoint(
            Callable, "(round_context) -> str | None: a block of the system prompt"
        ),
        "answer_hooks": ExtensionPoint(Callable, "(run) -> None, after a chat run answered"),
        "specialist_tools": ExtensionPoint(Callable, "(specialist_id) -> Iterable[tool name] | None"),
        "run_cancelled": ExtensionPoint(Callable, "(run) -> None, after a run was cancelled"),
    }
    extends = {
        "knowledge.sources": ["apps.agent.history_context.source"],  # history:<id> in context_search
        "core.error_codes": ["apps.agent.errors.RUN_CODES"],
    }
