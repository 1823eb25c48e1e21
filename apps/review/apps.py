from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry


class ReviewConfig(DomainApp):
    """The review queues where people decide on memories, learning objects and wiki proposals."""

    name = "apps.review"
    label = "review"
    verbose_name = _("Review")
    # The memory page is here, not in apps.memory: pages that show and decide live in this app.
    navigation = [
        NavEntry("memory", _("Memory"), "review:memory", order=74),
        NavEntry(
            "review",
            _("Review"),
            "review:queue",
            order=75,
            visible="apps.review.services.is_reviewer",
            badge="apps.review.services.waiting_count",
            badge_topics=("memory", "learning.review", "wiki.proposals"),
        ),
    ]
