"""The client page's "Open tasks" section (extension point `clients.page_sections`, declared in
`apps.tasks.apps`): the client's unfinished tasks the viewer may see, and the "add a task for
this client" form. Two queries for the page plus one for the client check, whatever it holds."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients.models import Client
from apps.clients.page import Section
from apps.tasks import services

LINKED_TASKS = 50  # the full list is one click away


def section(principal: Principal, client: Client) -> Section:
    tasks, total = services.list_tasks(principal, client_id=client.pk, unfinished=True, limit=LINKED_TASKS)
    return Section(
        "tasks",
        "tasks/_client_page.html",
        {"open_tasks": tasks, "open_task_total": total},
        order=20,
        live_topics=("aufgaben.task",),
        actions="tasks/_client_page_quick_add.html",
    )
