from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class DashboardConfig(DomainApp):
    """The top layer: the start page (the modules and the person's widget cards) and the
    first-start setup (`manage.py bootstrap`). The only app that may see every other one; no app
    imports it."""

    name = "apps.dashboard"
    label = "dashboard"
    verbose_name = _("Overview")
