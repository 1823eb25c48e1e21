"""The main navigation and the announce catalog are resolved once per process (per URL conf and
language), the rest per request: who sees an entry, the active entry and the counts."""

import json
import re

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from apps.core import plugins
from apps.core.surfaces import navigation
from apps.core.surfaces.navigation import navigation_html, resolved_navigation

pytestmark = pytest.mark.django_db

PROBE = {"visible": True, "count": 0}


def probe_visible(user) -> bool:
    return PROBE["visible"]


def probe_count(user) -> int:
    return PROBE["count"]


def test_labels_and_catalog_follow_each_request_language(client, anna):
    client.force_login(anna)
    for language, label in [("de", "Aufgaben"), ("en", "Tasks"), ("de", "Aufgaben"), ("it", "Attività")]:
        anna.language = language
        anna.save(update_fields=["language"])
        page = client.get("/aufgaben/").content.decode()
        mainnav = re.search(r'<nav class="mainnav".*?</nav>', page, re.S).group(0)
        assert f'aria-current="page">{label}</a>' in mainnav
        catalog = json.loads(re.search(r'id="announce-catalog"[^>]*>(.*?)</script>', page, re.S).group(1))
        with translation.override(language):
            assert catalog["aufgaben.task.created"] == str(
                plugins.announce_catalog()["aufgaben.task.created"]
            )


def test_an_entry_whose_page_is_not_installed_is_shown_disabled(monkeypatch, admin_user):
    gone = plugins.NavEntry("gone", "Weg <&>", "no-such-page", order=999)
    monkeypatch.setattr(plugins, "navigation", lambda: [gone])
    with translation.override("en"):
        items = resolved_navigation("/", admin_user)
        html = navigation_html(items)
    assert [(i["key"], i["url"], i["active"]) for i in items] == [("gone", None, False)]
    assert '<span class="disabled" title="Not available yet">Weg &lt;&amp;&gt;</span>' in html


def test_who_sees_an_entry_and_its_count_stay_per_request(monkeypatch, anna):
    entry = plugins.NavEntry(
        "probe",
        "Probe",
        "calendar:index",
        visible=f"{__name__}.probe_visible",
        badge=f"{__name__}.probe_count",
        badge_topics=("calendar",),
    )
    monkeypatch.setattr(plugins, "navigation", lambda: [entry])
    monkeypatch.setitem(PROBE, "visible", True)
    monkeypatch.setitem(PROBE, "count", 3)
    calendar = reverse("calendar:index")
    with translation.override("en"):
        first = navigation_html(resolved_navigation(calendar, anna))
        PROBE["count"] = 0
        second = navigation_html(resolved_navigation("/", anna))
        PROBE["visible"] = False
        third = resolved_navigation(calendar, anna)
    assert first.strip() == (
        f'<a href="{calendar}" class="active" aria-current="page">Probe <span class="badge nav-count"'
        ' data-nav-badge="probe" data-badge-topics="calendar">3</span></a>'
    )
    assert second.strip() == (
        f'<a href="{calendar}">Probe <span class="badge nav-count" data-nav-badge="probe"'
        ' data-badge-topics="calendar" hidden>0</span></a>'
    )
    assert third == []  # the memo never keeps who sees an entry


def test_a_new_url_conf_resolves_the_navigation_anew(admin_user):
    with translation.override("en"):
        before = {i["key"]: i["url"] for i in resolved_navigation("/", admin_user)}
        with override_settings(ROOT_URLCONF="tests.core.nav_urlconf"):
            inside = {i["key"]: i["url"] for i in resolved_navigation("/", admin_user)}
        after = {i["key"]: i["url"] for i in resolved_navigation("/", admin_user)}
    assert before["tasks"] == reverse("tasks:board") and after == before
    assert inside["tasks"] is None and inside["chat"] is None  # no such pages in that URL conf


def test_a_second_page_resolves_nothing_anew(admin_user, monkeypatch):
    resolved = []
    real = navigation._resolve
    monkeypatch.setattr(navigation, "_resolve", lambda entry: resolved.append(entry.key) or real(entry))
    with translation.override("en"):
        resolved_navigation("/", admin_user)
        first = len(resolved)
        resolved_navigation("/aufgaben/", admin_user)
    assert first <= len(plugins.navigation()) and len(resolved) == first
