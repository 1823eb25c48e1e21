"""The one extension mechanism: what the apps declare on their AppConfig reaches the product."""

import pytest
from django.urls import reverse
from django.utils import translation

from apps.core import plugins
from apps.tools import registry


def test_every_tool_family_in_use_is_declared_by_an_app():
    declared = set(plugins.tool_families())
    used = {f for t in registry.all_tools() if t.handler.__module__.startswith("apps.") for f in t.families}
    assert used - declared == set()


def test_the_starting_toolbox_comes_from_the_declarations():
    assert registry.start_families() == {"core", "agent", "aufgaben"}
    assert registry.get("notizen_list_notes").module == "notizen"  # gated by its family
    assert registry.get("aufgaben_create_task").module is None


def test_navigation_entries_resolve_in_order():
    entries = plugins.navigation()
    assert [e.order for e in entries] == sorted(e.order for e in entries)
    assert [e.key for e in entries][:3] == ["chat", "tasks", "calendar"]
    for entry in entries:
        assert reverse(entry.url_name)


def test_only_the_entry_with_the_longest_matching_page_is_active(admin_user):
    from apps.core.surfaces.navigation import resolved_navigation

    fristen = reverse("calendar:deadlines")
    active = [i["key"] for i in resolved_navigation(fristen, admin_user) if i["active"]]
    assert fristen.startswith(reverse("calendar:index")) and active == ["fristen"]
    assert [i["key"] for i in resolved_navigation("/", admin_user) if i["active"]] == []


def test_announce_catalog_is_translated():
    with translation.override("de"):
        catalog = {k: str(v) for k, v in plugins.announce_catalog().items()}
    assert catalog["aufgaben.task.created"] == "Aufgabe angelegt"
    assert len(catalog) >= 46


@pytest.mark.django_db
def test_pages_carry_the_announce_catalog(client, anna):
    client.force_login(anna)
    page = client.get("/aufgaben/").content.decode()
    assert 'id="announce-catalog"' in page and "aufgaben.task.created" in page


def test_every_app_with_routes_is_included():
    modules = plugins.url_modules()
    assert {"apps.tasks.urls", "apps.calendar.urls", "apps.dashboard.urls"} <= set(modules)


def test_periodic_jobs_are_declared_once_each():
    names = [job.name for job in plugins.periodic_jobs()]
    assert len(names) == len(set(names)) and "Housekeeping heartbeat" in names


def test_a_declaration_that_cannot_be_imported_fails_the_system_check(monkeypatch):
    from django.apps import apps

    from apps.core.checks import declarations

    assert declarations() == []
    config = apps.get_app_config("tasks")
    monkeypatch.setattr(config, "extends", {"clients.page_sections": ["apps.tasks.nowhere.section"]})
    [error] = declarations()
    assert error.id == "clapilot.E001" and "apps.tasks.nowhere.section" in error.msg
