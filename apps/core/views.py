from django.http import JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.core import health


@require_GET
@never_cache
def healthz(request):
    """Public liveness/readiness report: component states only, never secrets or error text."""
    report = health.report()
    return JsonResponse(report, status=200 if report["ok"] else 503)


def _api_error(request, code: str, message: str, status: int):
    return JsonResponse({"code": code, "message": message, "details": None}, status=status)


def page_not_found(request, exception=None):
    """`handler404`: an unknown URL under /api/ answers in the API's error shape (ErrorOut), so a
    client can branch on `code` there too; pages keep Django's not-found page."""
    if request.path.startswith("/api/"):
        return _api_error(request, "not_found", _("Not found."), 404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    """`handler500`: under /api/ the error shape (never a traceback or an HTML page)."""
    if request.path.startswith("/api/"):
        return _api_error(request, "server_error", _("An internal error occurred."), 500)
    return defaults.server_error(request)
