from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint


class NotificationsConfig(DomainApp):
    name = "apps.notifications"
    verbose_name = _("Notifications")
    extension_points = {
        "people_watches": ExtensionPoint(
            "apps.notifications.watch.PeopleWatch",
            doc="Person fields of a model whose newly named person is notified (Zuständig, assignee).",
        ),
    }

    def ready(self) -> None:
        from apps.core.plugins import contributions
        from apps.notifications import shares, watch

        watch.connect(contributions("notifications.people_watches"))
        shares.connect()
