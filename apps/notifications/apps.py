from collections.abc import Callable

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint, PeriodicJob


class NotificationsConfig(DomainApp):
    name = "apps.notifications"
    verbose_name = _("Notifications")
    extension_points = {
        "people_watches": ExtensionPoint(
            "apps.notifications.watch.PeopleWatch",
            doc="Person fields of a model whose newly named person is notified (Zuständig, assignee).",
        ),
        "mention_watches": ExtensionPoint(
            "apps.notifications.mentions.MentionWatch",
            doc="Texts whose @-mentioned people are notified if they may see the record.",
        ),
        "digest_counts": ExtensionPoint(
            Callable, doc="counts(today) -> {user id: {kind: n}} for the morning digest (one query)."
        ),
    }

    periodic_jobs = [
        PeriodicJob(
            "Benachrichtigungen: Tagesüberblick am Morgen",
            "apps.notifications.jobs.send_morning_digest",
            crontab="*/15 * * * *",  # 07:00 in each person's time zone: every offset is a quarter hour
        ),
    ]

    def ready(self) -> None:
        from apps.core.plugins import contributions
        from apps.notifications import mentions, shares, watch

        watch.connect(contributions("notifications.people_watches"))
        shares.connect()
        mentions.connect(contributions("notifications.mention_watches"))
