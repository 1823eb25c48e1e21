from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, PeriodicJob, ToolFamily


class LearningConfig(DomainApp):
    """Learning objects proposed from chats (durable facts, procedure proposals) and the curator
    that reviews them. Pages of the review queues live in apps.review; the services here are
    their writer."""

    name = "apps.learning"
    label = "learning"
    verbose_name = _("Learning")
    url_module = ""  # the review app owns the pages
    tool_families = [ToolFamily("learning", start=True)]
    announce = {
        "learning.object.activated": _("New office knowledge learned"),
        "learning.object.staged": _("New learning to review"),
        "learning.object.approved": _("Learning approved"),
        "learning.object.rejected": _("Learning rejected"),
        "learning.object.retired": _("Learning retired"),
        "learning.decision.reverted": _("Learning decision reverted"),
    }
    periodic_jobs: list[PeriodicJob] = []  # the curator job follows with apps.learning.jobs
    extends: dict = {}  # prompt layer, answer hook and context source follow
