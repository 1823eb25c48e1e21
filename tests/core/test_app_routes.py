"""REST routes are declared by their apps (`api_urls`) and mounted once under `api/v1/`, in the
app's URL namespace: URLs and names stay what clients know."""

from __future__ import annotations

from importlib import import_module

from django.urls import resolve, reverse

from apps.core import plugins


def test_rest_routes_keep_their_urls_and_names():
    assert reverse("tasks:api-tasks") == "/api/v1/tasks/"
    assert reverse("api-tools-execute") == "/api/v1/tools/execute"
    assert reverse("deadlines:api-working-day") == "/api/v1/deadlines/working-day"
    assert reverse("chat:api-run-stream", args=[3]) == "/api/v1/chat/runs/3/events/stream"
    assert resolve("/api/v1/memory").view_name == "memory:api-memory"
    assert reverse("tasks:board") == "/aufgaben/"


def test_no_app_writes_the_api_prefix_itself():
    for config in plugins.domain_apps():
        for name in (config.urls(), config.api_url_module()):
            if name:
                routes = [str(p.pattern) for p in import_module(name).urlpatterns]
                assert not [r for r in routes if r.startswith(plugins.API_PREFIX)], name


def test_an_app_without_page_routes_still_has_its_namespace():
    config = next(c for c in plugins.domain_apps() if c.label == "deadlines")
    assert config.urls() is None and config.api_url_module() == "apps.deadlines.api_urls"
