"""The assignee of a task hears of it, and so does a person @-mentioned in a comment (see
`apps.notifications.watch` and `.mentions`). An assignee always may see the board
(`services._check_assignee`); `can_see` checks it again so a stale row never leaks, and keeps a
mention of someone outside a private board from telling them anything."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count

from apps.mutations.audience import EVERYONE
from apps.notifications.mentions import MentionWatch
from apps.notifications.watch import PeopleWatch
from apps.tasks.models import Task, TaskStatus
from apps.tasks.visibility import viewers


def _can_see(task: Task, user) -> bool:
    board_viewers = viewers(task.board)
    return board_viewers == EVERYONE or user.pk in board_viewers


WATCH = PeopleWatch(
    model="tasks.Task",
    fields={"assignee": "task.assigned"},
    url=lambda task: task.url,
    can_see=_can_see,
)

COMMENT_MENTIONS = MentionWatch(
    model="tasks.Comment",
    text="body",
    record=lambda comment: comment.task,
    url=lambda task: task.url,
    can_see=_can_see,
)


def digest_counts(today: dt.date) -> dict[int, dict[str, int]]:
    """The morning digest's overdue tasks per assignee (unfinished, due before today; one query)."""
    rows = (
        Task.objects.filter(due_date__lt=today, assignee__isnull=False)
        .exclude(status__category=TaskStatus.Category.DONE)
        .values("assignee_id")
        .annotate(n=Count("id"))
        .values_list("assignee_id", "n")
    )
    return {assignee_id: {"tasks_overdue": n} for assignee_id, n in rows}
