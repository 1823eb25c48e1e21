"""Stable failure codes of the Mandanten domain. Invalid input and version conflicts use the shared
bases of `apps.core.errors` as they are (`invalid_input`, `version_conflict`)."""

from apps.core.errors import NotFound


class ClientNotFound(NotFound):
    code = "client_not_found"


class CaseNotFound(NotFound):
    code = "case_not_found"
