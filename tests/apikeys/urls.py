"""Routes for the test-only views of test_permissions.py (next to the real auth endpoints)."""

from django.urls import include, path

from tests.apikeys.test_permissions import MemoryReadView, NoScopeView, ToolsView
from tests.apikeys.test_preferences import PreferencesView

urlpatterns = [
    path("t/tools", ToolsView.as_view()),
    path("t/memory", MemoryReadView.as_view()),
    path("t/unscoped", NoScopeView.as_view()),
    path("t/preferences", PreferencesView.as_view()),
    path("", include("apps.apikeys.urls")),
]
