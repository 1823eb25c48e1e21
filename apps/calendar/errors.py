"""Stable failure codes of the Kalender domain (tools, API and pages map them in one place).

Bad values, refusals and stale writes use the shared bases directly (`apps.core.errors`:
`InvalidInput` "invalid_input", `Forbidden` "forbidden", `VersionConflict` "version_conflict")."""

from apps.core.errors import NotFound


class EventNotFound(NotFound):
    """No such calendar entry, or one the caller cannot see."""

    code = "event_not_found"


class FeedTokenNotFound(NotFound):
    """No such calendar subscription link of the caller's."""

    code = "feed_token_not_found"
