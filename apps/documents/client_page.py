"""The client page's "Documents" section (extension point `clients.page_sections`, declared in
`apps.documents.apps`): the newest documents linked to the client that the viewer may see (other
people's personal folders stay out). Two queries, whatever the client has."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients.models import Client
from apps.clients.page import Section
from apps.documents import services

LINKED_DOCUMENTS = 20  # the full list is one click away


def section(principal: Principal, client: Client) -> Section:
    documents, total = services.list_documents(principal, client_id=client.pk, limit=LINKED_DOCUMENTS)
    return Section(
        "documents",
        "documents/_client_page.html",
        {"documents": documents, "document_total": total},
        order=50,
        live_topics=("documents.document",),
    )
