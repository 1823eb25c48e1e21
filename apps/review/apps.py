from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint, NavEntry


class ReviewConfig(DomainApp):
    """Hosts the review queues the domains declare (`extends = {"review.queues": [...]}`, each a
    `apps.core.review_queues.QueueKind`): one page, the admin view and the navigation badge."""

    name = "apps.review"
    label = "review"
    verbose_name = _("Review")
    extension_points = {
        "queues": ExtensionPoint("apps.core.review_queues.QueueKind", "a review queue (its instance)")
    }
    navigation = [
        NavEntry(
            "review",
            _("Review"),
            "review:queue",
            order=75,
            visible="apps.review.services.is_reviewer",
            badge="apps.review.services.waiting_count",
            badge_topics="apps.review.services.queue_topics",
        ),
    ]

    def ready(self) -> None:
        from apps.review import checks  # noqa: F401  (registers the queue check)
