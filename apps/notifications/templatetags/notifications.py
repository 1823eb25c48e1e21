"""`{% notification_bell as bell %}`: what the header's bell shows on every page (the unread count
and the newest few), two small indexed queries."""

from django import template

from apps.notifications import services

register = template.Library()


@register.simple_tag(takes_context=True)
def notification_bell(context) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"unread": 0, "items": []}
    return services.bell(request.principal)
