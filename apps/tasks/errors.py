"""Stable failure codes of the Aufgaben domain. Forbidden, invalid input and version conflicts use
the shared bases of `apps.core.errors` as they are."""

from apps.core.errors import NotFound


class BoardNotFound(NotFound):
    code = "board_not_found"


class StatusNotFound(NotFound):
    code = "status_not_found"


class TaskNotFound(NotFound):
    code = "task_not_found"
