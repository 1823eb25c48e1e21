"""The header search (/suche/ and its drop-down): every app's section through its own provider
(`dashboard.search_providers`), never a row the person may not see, bad input refused clearly,
and a constant number of queries whatever the hits."""

import pytest
from django.urls import reverse

from apps.core.plugins import contributions
from apps.dashboard.search import POINT
from apps.documents.visibility import grant
from apps.notes import services as notes
from apps.tasks import services as tasks
from apps.wiki import services as wiki
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db

SEARCH = "/suche/"
SUGGEST = "/suche/vorschlaege/"


def test_every_domain_contributes_a_provider():
    modules = [p.__module__ for p in contributions(POINT)]
    assert sorted(modules) == sorted(
        [
            "apps.tasks.search",
            "apps.clients.search",
            "apps.documents.search",
            "apps.notes.search",
            "apps.wiki.search",
        ]
    )


def test_the_box_is_in_every_page_header(web):
    html = web.get(reverse("dashboard")).content.decode()
    assert 'id="header-search-input"' in html and 'aria-keyshortcuts="/"' in html
    assert "js/header-search.js" in html
