"""The start page: every module of the main navigation as a tile, then the person's widgets."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.utils import timezone

from apps.core.navigation import resolved_navigation
from apps.widgets.views import dashboard_context


@login_required
def dashboard(request):
    modules = [item for item in resolved_navigation(request.path, request.user) if item["key"] != "settings"]
    context = {"modules": modules, "now": timezone.localtime(), **dashboard_context(request.user)}
    return render(request, "dashboard/index.html", context)
