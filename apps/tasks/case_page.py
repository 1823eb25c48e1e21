"""The case page's "Tasks" section and the client page's open tasks per case (extension points
`clients.case_sections` and `clients.case_open_items`, declared in `apps.tasks.apps`): the case's
unfinished tasks the viewer may see, the "add a task to this case" form, and per case the number
of unfinished tasks. The section is the client page's, filtered by the case (`client_page`); a
constant number of queries, whatever the case holds."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import ngettext

from apps.accounts.principal import Principal
from apps.clients.case_page import OpenItems, Section
from apps.clients.models import Case
from apps.tasks import services
from apps.tasks.client_page import TOPICS, tasks_section


def section(principal: Principal, case: Case) -> Section:
    return tasks_section(
        principal, "tasks/_case_page.html", "tasks/_case_page_quick_add.html", case_id=case.pk
    )


def _describe(count: int) -> str:
    return ngettext("%(count)d open task", "%(count)d open tasks", count) % {"count": count}


def open_items(principal: Principal, case_ids: Sequence[int]) -> OpenItems:
    return OpenItems(
        "tasks",
        services.open_task_counts(principal, case_ids),
        _describe,
        order=20,
        live_topics=TOPICS,
    )
