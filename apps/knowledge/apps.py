from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class KnowledgeConfig(AppConfig):
    name = "apps.knowledge"
    label = "knowledge"
    verbose_name = _("Knowledge")

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
