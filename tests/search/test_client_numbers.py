"""Client search by client number and Steuernummer, on every surface that lists clients: the
service, the Mandanten page, the mandanten_list / mandanten_search tools and the REST list."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.clients import services
from apps.clients.contracts import ClientFilter
from apps.core.inputs import build
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def taxed(db):
    return ClientFactory(name="Steuerbüro Kunde GmbH", client_number="K-2024-117", tax_number="21/815/08150")


@pytest.fixture
def other(db):
    return ClientFactory(name="Nordlicht AG", client_number="30001", tax_number="143/256/78901")


@pytest.mark.parametrize("query", ["21/815/08150", "2181508150", "21 815 08150", "815/0815", "08150"])
def test_steuernummer_with_or_without_separators(as_anna, taxed, other, query):
    assert [c.pk for c in services.search_clients(as_anna, query)] == [taxed.pk]


@pytest.mark.parametrize("query", ["K-2024-117", "k2024117", "2024-117", "K-2024"])
def test_client_number_in_part_and_without_separators(as_anna, taxed, other, query):
    assert [c.pk for c in services.search_clients(as_anna, query)] == [taxed.pk]


def test_short_or_wordy_queries_stay_full_text(as_anna, taxed, other):
    assert services.search_clients(as_anna, "15") == []  # too short to be a number fragment
    assert [c.pk for c in services.search_clients(as_anna, "nordlicht")] == [other.pk]


def test_a_hidden_client_is_never_found_by_its_numbers(as_anna, hidden_client):
    hidden_client.tax_number = "99/999/99999"
    hidden_client.save(update_fields=["tax_number"])
    assert services.search_clients(as_anna, "9999999999") == []
    assert services.search_clients(as_anna, "99999") == []
    assert services.list_clients(as_anna, build(ClientFilter, query="99/999/99999")) == ([], 0)


def test_the_mandanten_page_finds_the_steuernummer(web, taxed, other):
    html = web.get(reverse("clients:index"), {"q": "2181508150"}).content.decode()
    assert "Steuerbüro Kunde GmbH" in html and "Nordlicht AG" not in html


def test_tools_find_the_steuernummer(as_anna, taxed, other):
    ctx = ToolContext(principal=as_anna)
    listed = dispatch("mandanten_list", {"query": "21/815/08150"}, ctx)
    assert listed.ok and [c["id"] for c in listed.output["clients"]] == [taxed.pk]
    found = dispatch("mandanten_search", {"query": "2181508150"}, ctx)
    assert [c["id"] for c in found.output["clients"]] == [taxed.pk]


def test_rest_list_finds_the_client_number(anna, taxed, other):
    _, token = keys.issue_device_token(anna, "iPhone")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    body = api.get("/api/v1/clients/", {"query": "k2024117"}).json()
    assert [c["id"] for c in body["clients"]] == [taxed.pk]
