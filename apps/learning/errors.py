"""Stable failure codes of learning. Forbidden and invalid input use the shared bases as they are."""

from apps.core.errors import Conflict, DomainError, NotFound


class LearningObjectNotFound(NotFound):
    code = "learning_object_not_found"


class LearningDecisionNotFound(NotFound):
    code = "learning_decision_not_found"


class NotReviewable(Conflict):
    """The object is no longer in a state this decision applies to (decided by someone else)."""

    code = "learning_not_reviewable"


class AlreadyReverted(Conflict):
    """The decision was already reverted, or a later decision on the object came after it."""

    code = "learning_decision_not_revertible"


class InvalidModelOutput(DomainError):
    """The extraction or curator model answered with something that is not the JSON asked for;
    the job changed nothing."""

    code = "invalid_model_output"
    http_status = 502
