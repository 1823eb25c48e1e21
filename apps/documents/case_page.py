"""The case page's "Documents" section (extension point `clients.case_sections`, declared in
`apps.documents.apps`): the client page's, filtered by the Akte (`client_page`)."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients.models import Case
from apps.clients.page import Section
from apps.documents.client_page import documents_section


def section(principal: Principal, case: Case) -> Section:
    return documents_section(principal, "documents/_case_page.html", case_id=case.pk)
