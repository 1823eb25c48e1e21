"""Stable failure codes of the Mandanten domain. Invalid input and version conflicts use the shared
bases of `apps.core.errors` as they are (`invalid_input`, `version_conflict`)."""

from apps.core.errors import InvalidInput, NotFound


class ClientNotFound(NotFound):
    code = "client_not_found"


class CaseNotFound(NotFound):
    code = "case_not_found"


class CaseClientMismatch(InvalidInput):
    """A record names a client and a case (Akte) of another client: one of the two is wrong."""

    code = "case_client_mismatch"
