"""Stable failure codes of the Kalender domain (tools, API and pages map them in one place).

Bad values, refusals and stale writes use the shared bases directly (`apps.core.errors`:
`InvalidInput` "invalid_input", `Forbidden` "forbidden", `VersionConflict` "version_conflict")."""

from apps.core.errors import Conflict, InvalidInput, NotFound


class EventNotFound(NotFound):
    """No such calendar entry, or one the caller cannot see."""

    code = "event_not_found"


class FeedTokenNotFound(NotFound):
    """No such calendar subscription link of the caller's."""

    code = "feed_token_not_found"


class NotADeadline(InvalidInput):
    """A Frist operation (complete, cancel, Vorfristen) on an appointment."""

    code = "not_a_deadline"


class DeadlineNotOpen(Conflict):
    """The Frist is already done or cancelled: it cannot be completed, cancelled or moved again."""

    code = "deadline_not_open"


class DeadlineNotClosed(Conflict):
    """Only a done or cancelled Frist can be reopened; this one is open."""

    code = "deadline_not_closed"


class DeadlineNotDeletable(Conflict):
    """A Frist is never deleted (the office must be able to show it existed): cancel it with a reason."""

    code = "deadline_not_deletable"


class DeadlineReasonRequired(InvalidInput):
    """Moving a Frist, or cancelling it, needs a reason for the Fristenbuch."""

    code = "deadline_reason_required"
