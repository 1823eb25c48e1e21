"""The case page (Akte) and the client page's open items per case: two extension points.

`clients.case_sections` — the case page shows everything linked to one case that the viewer may
see. The clients app knows none of the apps that link rows to cases: each declares its sections
on its AppConfig, the provider living in that app,

    extends = {"clients.case_sections": ["apps.<app>.case_page.section"]}

A provider is a `CaseSectionProvider`: `provider(principal, case)` answers a `Section` (the same
dataclass as the client page's, `apps.clients.page.Section`) or None to show nothing. `case` is
visible to the principal and comes with `client` and `responsible` loaded. The provider reads
through its own app's services (visibility!) and takes a constant number of queries whatever the
case holds: the page renders in a fixed number of queries (tests/clients/test_case_page.py).

The section template is rendered within the page (`{% client_section section %}`) with `case`,
`client` and the section's context. It should be a `<section class="card case-section"
id="case-<key>">` whose rows carry `data-list="<list>"` and `data-record-id="<id>"` (`<list>` is
the `list` of the app's live upserts, e.g. "tasks"). The page script (static/js/case-page.js)
refetches the linked region (`#case-linked`) when an upsert on one of the sections'
`live_topics` carries this case (`record.case_id`, or `record.case.id`), or when any action
touches a row shown there (a record moved to another case, removed, no longer visible). So every
upsert record of a linkable row must carry `case_id`. `actions` is an optional template (same
context) shown above the linked region, outside the refresh (typing survives it).

`clients.case_open_items` — the client page lists the client's cases, each with its open items
("3 open tasks · 1 open Frist"). A provider `provider(principal, case_ids)` answers `OpenItems`
(its counts per case id, in one query, through its own visibility rule) or None. The clients
app's own section of the client page, its cases with their open items (`cases_section`), lives
here beside them: the client page's module (`page.py`) needs nothing of this one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from apps.accounts.principal import Principal
from apps.clients import services
from apps.clients.contracts import CaseFilter
from apps.clients.models import Case, Client
from apps.clients.page import Section
from apps.core.inputs import build
from apps.core.plugins import contributions

POINT = "clients.case_sections"
OPEN_ITEMS_POINT = "clients.case_open_items"

__all__ = ["OPEN_ITEMS_POINT", "POINT", "CaseSectionProvider", "OpenItems", "Section", "sections"]


class CaseSectionProvider(Protocol):
    def __call__(self, principal: Principal, case: Case) -> Section | None: ...


def sections(principal: Principal, case: Case) -> list[Section]:
    """The sections every installed app contributes for this case and viewer, in order."""
    found = [s for provider in contributions(POINT) if (s := provider(principal, case)) is not None]
    return sorted(found, key=lambda s: (s.order, s.key))


@dataclass(frozen=True)
class OpenItems:
    key: str  # unique among the open items, e.g. "tasks"
    counts: dict[int, int]  # case id -> open items of that kind (cases without any may be left out)
    describe: Callable[[int], str]  # count -> localized label, e.g. "3 open tasks"
    order: int = 100
    live_topics: tuple[str, ...] = ()  # topics whose changes alter the counts
    section: str = ""  # the case page section listing them (anchor `#case-<section>`)


class OpenItemsProvider(Protocol):
    def __call__(self, principal: Principal, case_ids: Sequence[int]) -> OpenItems | None: ...


@dataclass(frozen=True)
class OpenItem:
    label: str
    anchor: str


def open_items(principal: Principal, case_ids: Sequence[int]) -> tuple[dict[int, list[OpenItem]], list[str]]:
    """Per case id, the labels of its open items in order; and the live topics concerned. One
    query per contributing app, whatever the number of cases."""
    ids = list(case_ids)
    if not ids:
        return {}, []
    found = [o for provider in contributions(OPEN_ITEMS_POINT) if (o := provider(principal, ids)) is not None]
    found.sort(key=lambda o: (o.order, o.key))
    per_case: dict[int, list[OpenItem]] = {pk: [] for pk in ids}
    for items in found:
        for pk in ids:
            if count := items.counts.get(pk, 0):
                per_case[pk].append(OpenItem(items.describe(count), f"case-{items.section or items.key}"))
    topics = sorted({topic for items in found for topic in items.live_topics})
    return per_case, topics


@dataclass(frozen=True)
class CasePageParts:
    sections: list[Section] = field(default_factory=list)
    live_topics: list[str] = field(default_factory=list)


def parts(principal: Principal, case: Case) -> CasePageParts:
    found = sections(principal, case)
    return CasePageParts(found, sorted({t for s in found for t in s.live_topics}))


# --- the clients app's own section ------------------------------------------------------------
def cases_section(principal: Principal, client: Client) -> Section:
    """The client's cases (Akten), all of them (a client has a handful), open ones first, each
    with its open items as the apps that link rows to cases count them (`clients.case_open_items`)."""
    cases, total = services.list_cases(
        principal, build(CaseFilter, client_id=client.pk, limit=services.MAX_PAGE)
    )
    cases.sort(key=lambda case: case.status != case.Status.OPEN)  # stable: newest first within
    items, topics = open_items(principal, [case.pk for case in cases])
    rows = [{"case": case, "open_items": items.get(case.pk, [])} for case in cases]
    return Section(
        "cases",
        "clients/_cases.html",
        {"cases": cases, "case_rows": rows, "case_total": total},
        order=40,
        live_topics=("cases.case", *topics),
    )
