from collections.abc import Callable

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint


class DashboardConfig(DomainApp):
    """The start page (the modules and the person's widget cards) and the header search. Only
    apps/ops sits above it; no domain imports it.

    Extension point it owns (filled through `extends`):

    - ``"dashboard.search_providers"``: callables `(principal, words, *, limit, quick) ->
      apps.core.db.search.SearchSection`, one per app that the header search covers; each reads
      only what the principal may see, through its own services (`apps.dashboard.search`).
    """

    name = "apps.dashboard"
    label = "dashboard"
    verbose_name = _("Overview")
    extension_points = {
        "search_providers": ExtensionPoint(Callable, "(principal, words, *, limit, quick) -> SearchSection")
    }
