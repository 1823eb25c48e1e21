"""The case page's "link a task" picker (`clients.case_links`): the case client's visible tasks
without a case, linked through `update_task`."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.clients.case_links import CaseLinker, newest
from apps.clients.models import Case
from apps.core.inputs import build
from apps.tasks import services
from apps.tasks.contracts import TaskUpdate


def candidates(principal: Principal, case: Case) -> list[tuple[int, str]]:
    return newest(
        services.visible_tasks(principal).filter(client_id=case.client_id, case__isnull=True), "title"
    )


def link(principal: Principal, case: Case, task_id: int) -> None:
    services.update_task(principal, task_id, build(TaskUpdate, case_id=case.pk))


LINKER = CaseLinker("tasks", _("Tasks"), candidates, link, order=20)
