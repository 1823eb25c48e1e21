from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp


class DeadlinesConfig(DomainApp):
    """Deadline computation (German rules: §§ 187-193 BGB, § 108 AO, § 222 ZPO, the Bekanntgabe fiction) and the catalog of deadline rules."""

    name = "apps.deadlines"
    label = "deadlines"
    verbose_name = _("Deadline rules")
    # Its one tool, calendar_compute_deadline, belongs to the Kalender's family (declared there).
    extends = {"core.instance_settings": ["apps.deadlines.office.INSTANCE_SETTINGS"]}

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from apps.core.models import InstanceSetting
        from apps.deadlines.office import setting_saved

        post_save.connect(setting_saved, sender=InstanceSetting, dispatch_uid="deadlines.office_state")
