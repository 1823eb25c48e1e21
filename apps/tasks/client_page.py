"""The tasks' sections of the hub pages: the client page's "Open tasks" (extension point
`clients.page_sections`) here, the case page's in `case_page` (declared in `apps.tasks.apps`).
Each shows the hub's unfinished tasks the viewer may see and the "add a task" form. Two queries
for the page plus one for the client check, whatever the hub holds."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients.models import Client
from apps.clients.page import Section
from apps.core.inputs import build
from apps.tasks import services
from apps.tasks.contracts import TaskFilter

LINKED_TASKS = 50  # the full list is one click away
TOPICS = ("aufgaben.task",)


def tasks_section(principal: Principal, template: str, actions: str, **hub: int) -> Section:
    """The unfinished tasks of one hub (`client_id=` or `case_id=`)."""
    tasks, total = services.list_tasks(
        principal, build(TaskFilter, unfinished=True, limit=LINKED_TASKS, **hub)
    )
    context = {"open_tasks": tasks, "open_task_total": total}
    return Section("tasks", template, context, order=20, live_topics=TOPICS, actions=actions)


def section(principal: Principal, client: Client) -> Section:
    return tasks_section(
        principal, "tasks/_client_page.html", "tasks/_client_page_quick_add.html", client_id=client.pk
    )
