from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, PeriodicJob

# The name the job had while it lived in apps/core: installed beat schedules and queued messages
# use it.
HEARTBEAT_TASK = "apps.core.jobs.heartbeat"


class OpsConfig(DomainApp):
    """Running the instance: first-start setup and the demo office, the health report, the beat
    heartbeat, backup and restore. The top layer: it may use every app, and none uses it."""

    name = "apps.ops"
    label = "ops"
    verbose_name = _("Operations")
    periodic_jobs = [
        PeriodicJob(
            "Housekeeping heartbeat",
            HEARTBEAT_TASK,
            every_seconds=settings.CLAPILOT_HEARTBEAT_SECONDS,
            kwargs={"component": "beat"},
        ),
    ]
