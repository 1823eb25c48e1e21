from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, ToolFamily


class WikiConfig(DomainApp):
    name = "apps.wiki"
    label = "wiki"
    verbose_name = _("Wiki")
    navigation = [NavEntry("wiki", _("Wiki"), "wiki:index", order=70)]
    tool_families = [ToolFamily("wiki")]
    announce = {
        "wiki.page.created": _("Wiki page created"),
        "wiki.page.updated": _("Wiki page changed"),
        "wiki.page.deleted": _("Wiki page deleted"),
        "wiki.proposal.created": _("New wiki proposal to review"),
        "wiki.proposal.accepted": _("Wiki proposal accepted"),
        "wiki.proposal.rejected": _("Wiki proposal rejected"),
    }
    extends = {
        "knowledge.sources": ["apps.wiki.context.source"],  # context_search / context_get
        "dashboard.search_providers": ["apps.wiki.search.provider"],
        "review.queues": ["apps.wiki.review_queue.proposals"],  # proposals, decided by reviewers
    }
