from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class DeadlinesConfig(DomainApp):
    """Deadline computation (German rules: §§ 187-193 BGB, § 108 AO, § 222 ZPO, the Bekanntgabe fiction) and the catalog of deadline rules."""

    name = "apps.deadlines"
    label = "deadlines"
    verbose_name = _("Deadline rules")
    # Its one tool, calendar_compute_deadline, belongs to the Kalender's family (declared there).
    extends = {"core.instance_settings": ["apps.deadlines.office.INSTANCE_SETTINGS"]}
