"""The base of every domain error: a stable `code` the dispatcher and the API map in one place."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A failure the caller can act on. `message` is shown to the person or the model as is, so it
    must be localized by the raiser (gettext) and must never contain raw database text."""

    code: str = "tool_error"
    http_status: int = 400

    def __init__(self, message: str = "", *, code: str | None = None, details: Any = None) -> None:
        super().__init__(message)
        self.message = str(message)
        if code is not None:
            self.code = code
        self.details = details


class NotFound(DomainError):
    code = "not_found"
    http_status = 404


class PermissionDenied(DomainError):
    code = "forbidden"
    http_status = 403
