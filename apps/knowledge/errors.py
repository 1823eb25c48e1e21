"""Stable failure codes of the knowledge store (tools, API and pages map them in one place).
Forbidden and invalid input use the shared bases of `apps.core.errors` as they are."""

from apps.core.errors import InvalidInput, NotFound, Unavailable


class KnowledgeNotFound(NotFound):
    """Missing and invisible look the same, so ids cannot be probed."""

    code = "knowledge_not_found"


class UnknownSource(InvalidInput):
    """`sources` or a result id names no context source."""

    code = "unknown_source"


class JobNotFound(NotFound):
    code = "index_job_not_found"


class EmbeddingError(Unavailable):
    """The embedding provider failed or answered with vectors we cannot store."""

    code = "embedding_failed"


class EmbeddingDimensionMismatch(EmbeddingError):
    """The configured model's vectors do not fit the store's dimensions (a setting to fix)."""

    code = "embedding_dimension_mismatch"
    http_status = 400


# Transitional name, not a class of its own: `context.py` and `indexing.py` (being moved to the
# declared extension points in parallel) still import it. Remove once they import InvalidInput.
