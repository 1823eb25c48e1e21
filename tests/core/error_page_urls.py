"""URLs for tests/core/test_error_pages.py: the project's URLs and handlers plus views that fail."""

from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.urls import path

from clapilot.urls import handler403, handler404, handler500
from clapilot.urls import urlpatterns as project_urls


@login_not_required  # the handlers are tested for anyone (pages are closed by default)
def boom(request):
    raise RuntimeError("database password=hunter2 in a traceback")


@login_not_required
def refused(request):
    raise PermissionDenied


urlpatterns = [
    path("kaputt/", boom),
    path("verboten/", refused),
    path("api/v1/kaputt/", boom),
    path("api/v1/verboten/", refused),
    *project_urls,
]

__all__ = ["handler403", "handler404", "handler500", "urlpatterns"]
