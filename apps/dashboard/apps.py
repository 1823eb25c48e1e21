from collections.abc import Callable

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint


class DashboardConfig(DomainApp):
    """The top layer: the start page (the modules and the person's widget cards) and the
    first-start setup (`manage.py bootstrap`). The only app that may see every other one; no app
    imports it.

    Extension point it owns (filled through `extends`):

    - ``"dashboard.search_providers"``: callables `(principal, words, *, limit, quick) ->
      apps.core.db.search.SearchSection`, one per app that the header search covers; each reads
      only what the principal may see, through its own services (`apps.dashboard.search`).
    """

    name = "apps.dashboard"
    label = "dashboard"
    verbose_name = _("Overview")
    # Sections declared here while the owning apps' apps.py are being reworked by others; they
    # belong in CalendarConfig/DocumentsConfig.extends (same effect: every app's are read).
    extends = {
        "dashboard.search_providers": [
            "apps.calendar.search.deadlines",
            "apps.calendar.search.appointments",
            "apps.documents.search.similar",
        ]
    }
    extension_points = {
        "search_providers": ExtensionPoint(Callable, "(principal, words, *, limit, quick) -> SearchSection")
    }
