"""Stable failure codes of the wiki. Forbidden, invalid input and version conflicts use the shared
bases of `apps.core.errors` as they are."""

from apps.core.errors import Conflict, NotFound


class PageNotFound(NotFound):
    code = "wiki_page_not_found"


class ProposalNotFound(NotFound):
    code = "wiki_proposal_not_found"


class SlugTaken(Conflict):
    """Another wiki page already has this address; `details.slug` names it."""

    code = "wiki_slug_taken"


class ProposalConflict(Conflict):
    """The page changed since the proposal was written: it cannot be applied as it is."""

    code = "proposal_conflict"


class ProposalNotPending(Conflict):
    """The proposal was already accepted or rejected."""

    code = "proposal_not_pending"
