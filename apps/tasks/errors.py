"""Stable failure codes of the Aufgaben domain (tools, API and pages map them in one place)."""

from apps.core.errors import DomainError, NotFound


class BoardNotFound(NotFound):
    code = "board_not_found"


class StatusNotFound(NotFound):
    code = "status_not_found"


class TaskNotFound(NotFound):
    code = "task_not_found"


class InvalidTaskInput(DomainError):
    """Bad values; `details` maps field → message so the model or the form can fix them."""

    code = "invalid_input"


class TaskForbidden(DomainError):
    code = "forbidden"
    http_status = 403


class VersionConflict(DomainError):
    """The task changed since the caller read it; `details` carries the current record."""

    code = "version_conflict"
    http_status = 409
