"""Stable failure codes of the knowledge store (tools, API and pages map them in one place)."""

from apps.core.errors import DomainError, NotFound


class InvalidKnowledgeInput(DomainError):
    """Bad values; `details` maps field → message."""

    code = "invalid_input"


class KnowledgeNotFound(NotFound):
    """Missing and invisible look the same, so ids cannot be probed."""

    code = "knowledge_not_found"


class UnknownSource(DomainError):
    code = "unknown_source"


class JobNotFound(NotFound):
    code = "index_job_not_found"


class KnowledgeForbidden(DomainError):
    code = "forbidden"
    http_status = 403


class EmbeddingError(DomainError):
    """The embedding provider failed or answered with vectors we cannot store."""

    code = "embedding_failed"
    http_status = 502


class EmbeddingDimensionMismatch(EmbeddingError):
    code = "embedding_dimension_mismatch"
    http_status = 400
