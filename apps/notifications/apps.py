from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class NotificationsConfig(DomainApp):
    name = "apps.notifications"
    verbose_name = _("Notifications")
