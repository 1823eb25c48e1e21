from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, PeriodicJob, ToolFamily

CURATOR_JOB = "Lernen: Kurator prüft neue Fakten"


class LearningConfig(DomainApp):
    """Learning objects proposed from chats (durable facts, procedure proposals) and the curator
    that reviews them. Its review queues (`review_queue.py`) are hosted by apps.review; the
    services here are their writer."""

    name = "apps.learning"
    label = "learning"
    verbose_name = _("Learning")
    url_module = ""  # the review app hosts the pages
    tool_families = [ToolFamily("learning")]  # found through tool_catalog_search
    announce = {
        "learning.object.activated": _("New office knowledge learned"),
        "learning.object.staged": _("New learning to review"),
        "learning.object.approved": _("Learning approved"),
        "learning.object.rejected": _("Learning rejected"),
        "learning.object.retired": _("Learning retired"),
        "learning.decision.reverted": _("Learning decision reverted"),
    }
    # A protected bundled automation: the admin may pause or retime it, never delete it.
    periodic_jobs = [
        PeriodicJob(CURATOR_JOB, "apps.learning.jobs.curate_job", every_seconds=900, protected=True)
    ]
    extends = {
        "agent.context_providers": ["apps.learning.prompt_layer.provider"],  # the approved layer
        "agent.answer_hooks": ["apps.learning.jobs.after_answer"],  # queues the extraction
        "knowledge.sources": ["apps.learning.context.source"],  # learning:<id> in context_search
        "review.queues": ["apps.learning.review_queue.objects", "apps.learning.review_queue.curator"],
    }
