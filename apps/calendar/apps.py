from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CalendarConfig(AppConfig):
    name = "apps.calendar"
    label = "office_calendar"  # "calendar" would shadow the standard library module name in labels
    verbose_name = _("Calendar")
