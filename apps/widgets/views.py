"""Widget cards on the dashboard: the partial the dashboard refetches on `mini-apps` events, and
removing a card. Writes go through the services."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.core.surfaces.web import domain_errors
from apps.widgets import services
from apps.widgets.present import present


def dashboard_context(user) -> dict:
    """What the dashboard template needs for the widget cards (one query)."""
    return {"widget_cards": [present(w) for w in services.dashboard_widgets(user)]}


def dashboard_cards(request):
    return render(request, "widgets/_cards.html", dashboard_context(request.user))


@require_POST
@domain_errors
def delete(request, widget_id: int):
    services.delete_widget(request.principal, widget_id=widget_id)
    if request.htmx:
        return render(request, "widgets/_cards.html", dashboard_context(request.user))
    messages.success(request, _("The widget was removed."))
    return redirect("dashboard")
