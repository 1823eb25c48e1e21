from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, PeriodicJob, ToolFamily


class MemoryConfig(DomainApp):
    """Durable memory: what the copilot remembers of the office and of each person, with people in control.

    This app has the services, the person's memory page (`views.py`, `/gedaechtnis/`), the agent
    tools (family `memory`, core: never install-gated), `/api/v1/memory`, the `memory:` source of
    `context_search` and its review queues (`review_queue.py`), which `apps.review` hosts.
    """

    name = "apps.memory"
    label = "memory"
    verbose_name = _("Memory")
    navigation = [NavEntry("memory", _("Memory"), "memory:index", order=74)]
    announce = {
        "memory.memory.created": _("Memory stored"),
        "memory.memory.confirmed": _("Memory confirmed"),
        "memory.memory.updated": _("Memory changed"),
        "memory.memory.decided": _("Memory reviewed"),
        "memory.memory.forgotten": _("Memory deleted"),
    }
    tool_families = [ToolFamily("memory")]  # one request_toolbox away; the remembered layer needs none
    periodic_jobs = [
        PeriodicJob("Gedächtnis: Embeddings nachziehen", "apps.memory.jobs.reembed", every_seconds=900),
    ]
    extends = {
        "knowledge.sources": ["apps.memory.context.source"],  # context_search / context_get
        "agent.context_providers": ["apps.memory.agent_context.provider"],  # the remembered layer
        "review.queues": ["apps.memory.review_queue.pending", "apps.memory.review_queue.conflicts"],
    }
