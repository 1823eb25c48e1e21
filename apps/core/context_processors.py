from django.conf import settings

from apps.core.navigation import resolved_navigation


def navigation(request) -> dict:
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {"LANGUAGE_CHOICES": settings.LANGUAGES}
    return {"main_navigation": resolved_navigation(request.path), "LANGUAGE_CHOICES": settings.LANGUAGES}
