from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class ApprovalsConfig(DomainApp):
    """Freigaben: the dispatcher's approval step (policies per agent and tool, staged calls that
    wait for a person, standing approvals, approval tokens, the headless rule)."""

    name = "apps.approvals"
    label = "approvals"
    verbose_name = _("Approvals")
