from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, PeriodicJob, ToolFamily


class TasksConfig(DomainApp):
    name = "apps.tasks"
    label = "tasks"
    verbose_name = _("Tasks")
    navigation = [NavEntry("tasks", _("Tasks"), "tasks:board", order=20)]
    tool_families = [ToolFamily("aufgaben", start=True, aliases=("tasks",))]
    extends = {
        "clients.page_sections": ["apps.tasks.client_page.section"],
        "clients.case_sections": ["apps.tasks.case_page.section"],
        "clients.case_links": ["apps.tasks.case_links.LINKER"],
        "clients.case_open_items": ["apps.tasks.case_page.open_items"],
        "dashboard.search_providers": ["apps.tasks.search.provider"],
        "notifications.people_watches": ["apps.tasks.notices.WATCH"],
        "notifications.mention_watches": ["apps.tasks.notices.COMMENT_MENTIONS"],
        "notifications.digest_counts": ["apps.tasks.notices.digest_counts"],
    }
    periodic_jobs = [
        PeriodicJob(
            "Aufgaben: Wiedervorlage fällig", "apps.tasks.jobs.resurface_follow_ups", crontab="0 6 * * *"
        ),
    ]
    announce = {
        "aufgaben.task.created": _("Task created"),
        "aufgaben.task.updated": _("Task changed"),
        "aufgaben.task.moved": _("Task moved"),
        "aufgaben.task.deleted": _("Task deleted"),
        "aufgaben.task.removed": _("A task is no longer visible to you"),
        "aufgaben.task.resurfaced": _("Follow-up due: task is back on the list"),
        "aufgaben.comment.added": _("New comment on a task"),
        "aufgaben.board.created": _("New board"),
        "aufgaben.board.changed": _("A board was renamed"),
        "aufgaben.board.shared": _("A board was shared with you"),
        "aufgaben.board.unshared": _("A board is no longer shared with you"),
        "aufgaben.statuses.changed": _("Task statuses changed"),
    }
