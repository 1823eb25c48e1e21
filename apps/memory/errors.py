"""Error codes of durable memory: unique across the project (tests/core/test_error_codes.py).
An unknown client or case subject answers with the clients app's own codes
(`client_not_found`, `case_not_found`)."""

from apps.core.errors import Conflict, Forbidden, InvalidInput, NotFound, TooLarge


class MemoryNotFound(NotFound):
    """No such memory, or one the caller may not see (both answer alike)."""

    code = "memory_not_found"


class MemoryTooLarge(TooLarge):
    """The memory text is longer than `apps.memory.models.TEXT_MAX` characters (2,000)."""

    code = "memory_too_large"


class PersonNotFound(NotFound):
    """The person a memory is about (`subject_person_id`) is no active member of the office."""

    code = "person_not_found"


class InvalidPattern(InvalidInput):
    """A `memory_grep` pattern that is no valid regular expression, or one too costly to run."""

    code = "memory_invalid_pattern"


class ReviewNotAllowed(Forbidden):
    """The caller may not decide about this memory (shared memory needs the review permission)."""

    code = "memory_review_forbidden"


class AlreadyDecided(Conflict):
    """The memory was already approved or rejected (someone decided first)."""

    code = "memory_already_decided"


class DuplicateMemory(Conflict):
    """An edit would make the memory the same as another one (`details.existing_id`)."""

    code = "memory_duplicate"


class NotForgettable(Forbidden):
    """Only personal memory is forgotten on request; shared memory is rejected or retracted."""

    code = "memory_not_forgettable"


class NotMerged(Conflict):
    """Undoing a merge of a memory that is not merged into another one (or undone already)."""

    code = "memory_not_merged"
