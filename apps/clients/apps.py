from collections.abc import Callable

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint, NavEntry, ToolFamily


class ClientsConfig(DomainApp):
    name = "apps.clients"
    label = "clients"
    verbose_name = _("Clients")
    navigation = [NavEntry("clients", _("Clients"), "clients:index", order=50)]
    tool_families = [ToolFamily("mandanten"), ToolFamily("cases", module="cases")]
    extension_points = {
        "page_sections": ExtensionPoint(
            Callable, "(principal, client) -> Section | None (apps.clients.page)"
        ),
        "case_sections": ExtensionPoint(
            Callable, "(principal, case) -> Section | None (apps.clients.case_page)"
        ),
        "case_open_items": ExtensionPoint(Callable, "(principal, case_ids) -> OpenItems | None"),
        "case_links": ExtensionPoint(
            "apps.clients.case_links.CaseLinker", "rows linkable to a case (apps.clients.case_links)"
        ),
    }
    # The client page's sections come from the apps that link rows to clients (apps.clients.page).
    extends = {
        "clients.page_sections": ["apps.clients.case_page.cases_section"],
        "llm.personal_terms": ["apps.clients.personal_terms.client_terms"],
        "llm.sensitive_refs": ["apps.clients.sensitivity.sensitive_refs"],
        "llm.required_terms": ["apps.clients.sensitivity.required_terms"],
        "core.instance_settings": ["apps.clients.numbering.INSTANCE_SETTINGS"],
        "dashboard.search_providers": ["apps.clients.search.provider"],
    }

    def ready(self) -> None:
        from apps.clients import sensitivity

        sensitivity.connect()  # loading a client or case marked "neutralize always" demands it
