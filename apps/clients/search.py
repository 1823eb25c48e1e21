"""The header search's clients section (extension point `dashboard.search_providers`, declared in
`apps.clients.apps`): visible Mandanten by name, number or Steuernummer, via `list_clients`."""

from __future__ import annotations

from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.clients import services
from apps.clients.contracts import ClientFilter
from apps.core.db.search import SearchHit, SearchSection
from apps.core.inputs import build


def provider(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    clients, total = services.list_clients(principal, build(ClientFilter, query=words, limit=limit))
    hits = [
        SearchHit(
            title=client.name,
            url=reverse("clients:detail", args=[client.pk]),
            detail=" · ".join(x for x in (client.client_number, client.city) if x),
        )
        for client in clients
    ]
    more = f"{reverse('clients:index')}?{urlencode({'q': words})}"
    return SearchSection("clients", _("Clients"), hits, total=total, more_url=more, order=20)
