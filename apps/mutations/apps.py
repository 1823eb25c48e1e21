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
