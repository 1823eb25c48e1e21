"""Failure codes of the review queue; the decisions themselves answer with their domain's codes."""

from apps.core.errors import Forbidden, InvalidInput


class NotAReviewer(Forbidden):
    """The person may not decide in this review queue (no review permission)."""

    code = "review_forbidden"


class UnknownQueue(InvalidInput):
    code = "review_unknown_queue"


class DecisionNotOffered(InvalidInput):
    """This queue does not take this decision (e.g. edit on a wiki proposal)."""

    code = "review_decision_not_offered"
