"""The Mandanten pages: list with search and pagination, create, client page, edit."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.clients.models import Client

pytestmark = pytest.mark.django_db


def test_navigation_links_to_the_client_list():
    assert reverse("clients:index") == "/mandanten/"


def test_list_renders_and_searches(web, make_client):
    make_client("Bäckerei Schulz GmbH")
    make_client("Autohaus König")
    body = web.get(reverse("clients:index")).content.decode()
    assert "Bäckerei Schulz GmbH" in body and "Autohaus König" in body
    body = web.get(reverse("clients:index"), {"q": "bäckerei"}).content.decode()
    assert "Bäckerei Schulz GmbH" in body and "Autohaus König" not in body


def test_list_paginates_by_50(web, make_client):
    for i in range(52):
        make_client(f"Mandant {i:02d}")
    body = web.get(reverse("clients:index")).content.decode()
    assert body.count("data-record-id=") == 50 and "page=2" in body
    assert web.get(reverse("clients:index"), {"page": 2}).content.decode().count("data-record-id=") == 2


def test_list_query_count_is_constant(web, make_client, anna):
    make_client("Erster", responsible=anna)
    web.get(reverse("clients:index"))
    with CaptureQueriesContext(connection) as few:
        web.get(reverse("clients:index"))
    for i in range(20):
        make_client(f"Mandant {i}", responsible=anna)
    with CaptureQueriesContext(connection) as many:
        web.get(reverse("clients:index"))
    assert len(many) == len(few)


def test_create_page(web, make_client):
    assert web.get(reverse("clients:create")).status_code == 200
    response = web.post(
        reverse("clients:create"),
        {"name": "Café Lindner", "client_number": "10006", "kind": "company", "status": "active"},
    )
    client = Client.objects.get(client_number="10006")
    assert response.status_code == 302 and response.url == reverse("clients:detail", args=[client.pk])
    clash = web.post(
        reverse("clients:create"),
        {"name": "Café Anders", "client_number": "10006", "kind": "company", "status": "active"},
    )
    assert clash.status_code == 200 and Client.objects.count() == 1
    assert clash.context["form"].errors["client_number"]


def test_detail_shows_data_and_cases(web, make_client, make_case):
    client = make_client("Schreinerei Vogel", city="Fürstenfeldbruck")
    make_case(client, subject="Betriebsprüfung 2022–2024", reference="2026-0005")
    body = web.get(reverse("clients:detail", args=[client.pk])).content.decode()
    assert "Schreinerei Vogel" in body and "Fürstenfeldbruck" in body
    assert "Betriebsprüfung 2022–2024" in body and "2026-0005" in body
    assert web.get(reverse("clients:detail", args=[424242])).status_code == 404


def test_edit_saves_only_changed_fields(web, make_client):
    client = make_client("Meier GmbH", city="Garching", phone="089 1", kind="company")
    form = web.get(reverse("clients:detail", args=[client.pk])).context["form"]
    data = {name: form.initial.get(name, "") for name in form.fields}
    data["phone"] = "089 2"
    Client.objects.filter(pk=client.pk).update(city="München")  # someone else, meanwhile
    response = web.post(reverse("clients:detail", args=[client.pk]), data)
    assert response.status_code == 302
    client.refresh_from_db()
    assert client.phone == "089 2" and client.city == "München"


def test_login_required(client):
    assert client.get(reverse("clients:index")).status_code == 302
