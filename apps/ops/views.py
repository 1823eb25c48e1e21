from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.ops import health


@login_not_required
@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Public liveness/readiness report: component states only, never secrets or error text."""
    report = health.report()
    return JsonResponse(report, status=200 if report["ok"] else 503)
