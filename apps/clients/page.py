"""The client page's linked sections: the extension point `clients.page_sections`.

Below a Mandant's facts and editor, the client page shows everything linked to the client that
the viewer may see. The clients app knows none of the apps that link rows to clients: each one
declares its sections on its AppConfig, with the provider living in that app,

    extends = {"clients.page_sections": ["apps.<app>.client_page.section"]}

A provider is a `SectionProvider`: `provider(principal, client)` answers a `Section` (its
template, a small context and where it goes) or None to show nothing. It must read through its
own app's visibility rule and take a constant number of queries, whatever the client has: the
page renders in a fixed number of queries (tests/clients/test_client_page.py).

The section template is rendered within the page (`{% client_section section %}`), with
`client` and the section's context. It should be a `<section class="card client-section"
id="client-<key>">` whose rows carry `data-list="<list>"` and `data-record-id`: the page script
refetches the linked sections (the `#client-linked` region) when a record of this client, or a
row shown there, changes live. `live_topics` names the mutation topics (prefixes) whose records
concern the section; the page lists them on its root element (`data-linked-topics`).
`actions` is an optional second template (same context) shown above the linked sections.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from apps.accounts.principal import Principal
from apps.clients.models import Client
from apps.clients.services import shown
from apps.core.plugins import contributions

POINT = "clients.page_sections"


@dataclass(frozen=True)
class Section:
    key: str  # unique on the page: the section's element id is `client-<key>`
    template: str
    context: Mapping[str, Any] = field(default_factory=dict)
    order: int = 100  # lower first
    live_topics: tuple[str, ...] = ()
    # A template of actions shown above the linked sections, outside the live-refreshed region
    # (e.g. "add a task for this client": typing survives a refresh). Same context.
    actions: str | None = None


class SectionProvider(Protocol):
    def __call__(self, principal: Principal, client: Client) -> Section | None: ...


def sections(principal: Principal, client: Client) -> list[Section]:
    """The sections every installed app contributes for this client and viewer, in order. The
    providers name the client by id: they get the page's row (already checked) without a query."""
    with shown(principal, client):
        found = [s for provider in contributions(POINT) if (s := provider(principal, client)) is not None]
    return sorted(found, key=lambda s: (s.order, s.key))


def live_topics(found: list[Section]) -> list[str]:
    return sorted({topic for section in found for topic in section.live_topics})
