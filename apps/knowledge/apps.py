from collections.abc import Callable

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint, NavEntry, PeriodicJob, ToolFamily


class KnowledgeConfig(DomainApp):
    """The knowledge store. Extension points it owns (filled through `extends`):

    - ``"knowledge.sources"``: `apps.knowledge.context.ContextSource` objects, the sources of
      `context_search` / `context_get` (and, with `load`, of re-indexing after consent).
    - ``"knowledge.path_labels"``: callables naming the id segments of indexed paths
      (`apps.knowledge.labels`).
    """

    name = "apps.knowledge"
    label = "knowledge"
    verbose_name = _("Knowledge")
    extension_points = {
        "sources": ExtensionPoint(
            "apps.knowledge.context.ContextSource", "a source of context_search/context_get"
        ),
        "path_labels": ExtensionPoint(Callable, "(ids) -> {id: label} for the id segments of indexed paths"),
    }
    navigation = [NavEntry("knowledge", _("Knowledge"), "knowledge:index", order=80)]
    tool_families = [ToolFamily("context")]
    periodic_jobs = [
        PeriodicJob(
            "Wissen: Embedding-Modell abgleichen", "apps.knowledge.jobs.reconcile_model", every_seconds=600
        ),
    ]
    extends = {"agent.context_providers": ["apps.knowledge.agent_context.agent_context_provider"]}
