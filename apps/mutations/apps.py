from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, PeriodicJob


class MutationsConfig(DomainApp):
    name = "apps.mutations"
    verbose_name = _("Live updates")
    api_tag = "ui-mutation-events"
    periodic_jobs = [
        PeriodicJob(
            "Prune UI mutation events", "apps.mutations.jobs.prune_mutation_events", crontab="30 3 * * *"
        ),
    ]

    def ready(self) -> None:
        from apps.mutations.origin import connect_celery_signals

        connect_celery_signals()  # a job's events belong to the operation that enqueued it
