"""Stable failure codes of the Mandanten domain (tools, API and pages map them in one place)."""

from apps.core.errors import DomainError, NotFound


class ClientNotFound(NotFound):
    code = "client_not_found"


class CaseNotFound(NotFound):
    code = "case_not_found"


class InvalidClientInput(DomainError):
    """Bad values; `details` maps field → message so the model or the form can fix them."""

    code = "invalid_input"


class VersionConflict(DomainError):
    """The record changed since the caller read it; `details` carries the current record."""

    code = "version_conflict"
    http_status = 409
