"""The header search's tasks section (extension point `dashboard.search_providers`, declared in
`apps.tasks.apps`): visible tasks whose title, description or Mandant match, via `list_tasks`."""

from __future__ import annotations

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.core.db.search import SearchHit, SearchSection
from apps.core.inputs import build
from apps.tasks import services
from apps.tasks.contracts import TaskFilter
from apps.tasks.records import detail_url


def provider(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    tasks, total = services.list_tasks(principal, build(TaskFilter, query=words, limit=limit))
    hits = [
        SearchHit(
            title=task.title,
            url=detail_url(task.pk),
            detail=" · ".join(
                x for x in (task.board.name, task.status.name, task.client and task.client.name) if x
            ),
        )
        for task in tasks
    ]
    more = f"{reverse('tasks:list')}?{urlencode({'q': words})}"
    return SearchSection("tasks", _("Tasks"), hits, total=total, more_url=more, order=10)
