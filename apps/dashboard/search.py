"""The header search: one query, answered by every app that contributes a provider to the
extension point `dashboard.search_providers` (see `apps.core.db.search.SearchSection`). Each provider
reads its own rows through its own services and visibility rules; this module only validates the
words, asks the providers in their declared order and keeps one provider's failure from hiding
the other sections."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.search import SearchSection
from apps.core.errors import DomainError
from apps.core.plugins import contributions

logger = logging.getLogger(__name__)

POINT = "dashboard.search_providers"
QUERY_MAX = 200
MIN_CHARS = 2
PAGE_LIMIT = 10  # hits per section on the results page
QUICK_LIMIT = 4  # hits per section in the drop-down
# Headings of sections whose owning app's catalog is not ours to regenerate (translated here).
LABELS = (gettext_noop("Appointments"), gettext_noop("Similar documents"))


@dataclass(frozen=True)
class Outcome:
    section: SearchSection
    error: str = ""  # the provider's refusal, shown in place of its hits


def clean(words: object) -> str:
    """The words as typed, or `invalid_input` (too long; not text)."""
    return validation.text(words, "q", max_length=QUERY_MAX)


def run(principal: Principal, words: str, *, quick: bool = False) -> list[Outcome]:
    """Every provider's section for `words` (already `clean`), in the providers' order."""
    limit = QUICK_LIMIT if quick else PAGE_LIMIT
    outcomes = []
    for provider in contributions(POINT):
        try:
            outcomes.append(Outcome(provider(principal, words, limit=limit, quick=quick)))
        except DomainError as exc:  # e.g. a query a provider cannot search: say so in its place
            key = provider.__module__.split(".")[1]
            outcomes.append(Outcome(SearchSection(key, key, []), error=exc.message))
            logger.info("search provider %s refused %r: %s", key, words, exc.code)
    return sorted(outcomes, key=lambda o: o.section.order)


def total_hits(outcomes: list[Outcome]) -> int:
    return sum(len(o.section.hits) for o in outcomes)


def too_short() -> str:
    return _("Type at least %(n)d characters.") % {"n": MIN_CHARS}
