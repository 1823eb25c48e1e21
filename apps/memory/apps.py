from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class MemoryConfig(DomainApp):
    """Durable memory: what the copilot remembers of the office and of each person, with people in control."""

    name = "apps.memory"
    label = "memory"
    verbose_name = _("Memory")
