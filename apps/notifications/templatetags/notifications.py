"""`{% notification_bell as bell %}`: what the header's bell shows on every page (the unread count
and the newest few), two small indexed queries. A page that shows the same data itself (the
dashboard) passes it as `notification_bell` in its context, and the bell reuses it."""

from django import template

from apps.notifications import services

register = template.Library()


@register.simple_tag(takes_context=True)
def notification_bell(context) -> dict:
    request = context.get("request")
    if context.get("notification_bell") is not None:
        return context["notification_bell"]
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"unread": 0, "items": []}
    return services.bell(request.principal)
