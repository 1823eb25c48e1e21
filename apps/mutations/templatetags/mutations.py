"""`{% mutation_cursor %}`: the event id a freshly rendered page is current up to. The live-update
script starts its socket there, so events committed between rendering and connecting are
replayed, and older ones (already in the HTML) are not applied twice.

`{% toast_settings %}`: the viewer's id and notice setting, for the live notices (toasts.js).
"""

from django import template
from django.utils.html import json_script

from apps.core.surfaces.navigation import freshness
from apps.mutations.services import head_id

register = template.Library()


@register.simple_tag(takes_context=True)
def mutation_cursor(context) -> int:
    """The request's event id, shared with the navigation's badges (one query per page)."""
    request = context.get("request")
    return freshness(request) if request is not None else head_id()


@register.simple_tag(takes_context=True)
def toast_settings(context) -> str:
    """What static/js/toasts.js needs to skip the viewer's own changes and honour their mute."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return ""
    return json_script({"me": user.pk, "muted": bool(getattr(user, "mute_toasts", False))}, "toast-settings")
