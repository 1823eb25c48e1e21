"""Stable failure codes of the Kalender domain (tools, API and pages map them in one place)."""

from apps.core.errors import DomainError, NotFound


class EventNotFound(NotFound):
    code = "event_not_found"


class FeedTokenNotFound(NotFound):
    code = "feed_token_not_found"


class InvalidEventInput(DomainError):
    """Bad values; `details` maps field → message so the model or the form can fix them."""

    code = "invalid_input"


class EventForbidden(DomainError):
    code = "forbidden"
    http_status = 403


class VersionConflict(DomainError):
    """The entry changed since the caller read it; `details` carries the current record."""

    code = "version_conflict"
    http_status = 409
