from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, PeriodicJob, ToolFamily


class KnowledgeConfig(DomainApp):
    name = "apps.knowledge"
    label = "knowledge"
    verbose_name = _("Knowledge")
    navigation = [NavEntry("knowledge", _("Knowledge"), "knowledge:index", order=80)]
    tool_families = [ToolFamily("context")]
    periodic_jobs = [
        PeriodicJob(
            "Wissen: Embedding-Modell abgleichen", "apps.knowledge.jobs.reconcile_model", every_seconds=600
        ),
    ]

    def ready(self) -> None:
        from apps.agent import runtime
        from apps.knowledge import receivers
        from apps.knowledge.agent_context import agent_context_provider
        from apps.knowledge.context import knowledge_source
        from apps.knowledge.indexing import register_source_loader

        knowledge_source(receivers.SOURCE_TYPE, description="Office documents (uploaded and extracted).")
        register_source_loader(receivers.SOURCE_TYPE, receivers.load_document)
        if agent_context_provider not in runtime.context_providers:
            runtime.context_providers.append(agent_context_provider)
