"""Stable failure codes of the wiki (tools, API and pages map them in one place)."""

from apps.core.errors import DomainError, NotFound


class PageNotFound(NotFound):
    code = "wiki_page_not_found"


class ProposalNotFound(NotFound):
    code = "wiki_proposal_not_found"


class InvalidWikiInput(DomainError):
    """Bad values; `details` maps field → message."""

    code = "invalid_input"


class SlugTaken(DomainError):
    code = "slug_taken"
    http_status = 409


class WikiForbidden(DomainError):
    code = "forbidden"
    http_status = 403


class VersionConflict(DomainError):
    """A direct edit was written against an older revision than the current one."""

    code = "version_conflict"
    http_status = 409


class ProposalConflict(DomainError):
    """The page changed since the proposal was written: it cannot be applied as it is."""

    code = "proposal_conflict"
    http_status = 409


class ProposalNotPending(DomainError):
    code = "proposal_not_pending"
    http_status = 409
