from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class ReviewConfig(DomainApp):
    """The review queues where people decide on memories, learning objects and wiki proposals."""

    name = "apps.review"
    label = "review"
    verbose_name = _("Review")
