from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, PeriodicJob


class CoreConfig(DomainApp):
    name = "apps.core"
    verbose_name = _("System")
    periodic_jobs = [
        PeriodicJob(
            "Housekeeping heartbeat",
            "apps.core.jobs.heartbeat",
            every_seconds=settings.CLAPILOT_HEARTBEAT_SECONDS,
            kwargs={"component": "beat"},
        ),
    ]

    def ready(self) -> None:
        from apps.core import checks  # noqa: F401  (registers the declaration checks)
