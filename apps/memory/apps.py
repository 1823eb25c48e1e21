from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, PeriodicJob, ToolFamily


class MemoryConfig(DomainApp):
    """Durable memory: what the copilot remembers of the office and of each person, with people in control.

    The person's memory page lives in `apps.review`, which also hosts the review queues declared
    here (`review_queue.py`); this app has the services, the agent tools (family `memory`, core:
    never install-gated), `/api/v1/memory` and the `memory:` source of `context_search`.
    """

    name = "apps.memory"
    label = "memory"
    verbose_name = _("Memory")
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
