from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, PeriodicJob, ToolFamily


class CalendarConfig(DomainApp):
    name = "apps.calendar"
    label = "office_calendar"  # "calendar" would shadow the standard library module name in labels
    verbose_name = _("Calendar")
    api_tag = "calendar"
    navigation = [
        NavEntry("calendar", _("Calendar"), "calendar:index", order=30),
        NavEntry(
            "fristen",
            _("Deadlines"),
            "calendar:deadlines",
            order=31,
            badge="apps.calendar.fristen.nav_badge",
            badge_topics=("calendar",),
        ),
    ]
    tool_families = [ToolFamily("calendar")]
    extends = {
        "dashboard.search_providers": ["apps.calendar.search.deadlines", "apps.calendar.search.appointments"],
        "clients.page_sections": [
            "apps.calendar.client_page.deadlines",
            "apps.calendar.client_page.appointments",
        ],
        "clients.case_sections": [
            "apps.calendar.case_page.deadlines",
            "apps.calendar.case_page.appointments",
        ],
        "clients.case_links": ["apps.calendar.case_links.LINKER"],
        "clients.case_open_items": ["apps.calendar.case_page.open_items"],
        "notifications.people_watches": ["apps.calendar.notices.WATCH"],
        "notifications.digest_counts": ["apps.calendar.notices.digest_counts"],
    }
    periodic_jobs = [
        PeriodicJob(
            "Kalender: Erinnerungen senden", "apps.calendar.jobs.send_due_reminders", every_seconds=60
        ),
        PeriodicJob(
            "Fristen: Vorfrist-, Fälligkeits- und Überfälligkeitserinnerungen",
            "apps.calendar.jobs.send_deadline_reminders",
            every_seconds=60,
        ),
    ]
    announce = {
        "calendar.event.created": _("Calendar entry created"),
        "calendar.event.updated": _("Calendar entry changed"),
        "calendar.event.deleted": _("Calendar entry deleted"),
        "calendar.event.removed": _("A calendar entry is no longer visible to you"),
    }
