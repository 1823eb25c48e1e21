from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class LearningConfig(DomainApp):
    """Learning objects proposed from chats (durable facts, procedure proposals) and the curator that reviews them."""

    name = "apps.learning"
    label = "learning"
    verbose_name = _("Learning")
