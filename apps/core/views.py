from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.core import health


@require_GET
@never_cache
def healthz(request):
    """Public liveness/readiness report: component states only, never secrets or error text."""
    report = health.report()
    return JsonResponse(report, status=200 if report["ok"] else 503)
