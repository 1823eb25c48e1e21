from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.core import health
from apps.core.navigation import resolved_navigation
from apps.widgets.views import dashboard_context


@require_GET
@never_cache
def healthz(request):
    """Public liveness/readiness report: component states only, never secrets or error text."""
    report = health.report()
    return JsonResponse(report, status=200 if report["ok"] else 503)


@login_required
def dashboard(request):
    modules = [item for item in resolved_navigation(request.path) if item["key"] != "settings"]
    context = {"modules": modules, "now": timezone.localtime(), **dashboard_context(request.user)}
    return render(request, "core/dashboard.html", context)
