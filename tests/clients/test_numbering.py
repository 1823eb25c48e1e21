"""A client created without a number gets the next free one of the office's scheme, on every
surface; concurrent creates never take the same number; the scheme is an instance setting."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.clients import numbering, services
from apps.clients.contracts import ClientCreate
from apps.clients.forms import ClientForm
from apps.clients.models import Client
from apps.core.inputs import build
from apps.core.models import InstanceSetting
from apps.core.services import set_setting
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


def test_the_scheme_ships_in_the_settings_and_starts_at_10001(as_anna):
    assert InstanceSetting.objects.get(key=numbering.SETTING_KEY).value == numbering.DEFAULT_SCHEME
    assert (
        services.create_client(as_anna, build(ClientCreate, name="Erster Mandant")).client_number == "10001"
    )
    assert (
        services.create_client(as_anna, build(ClientCreate, name="Zweiter", client_number="  ")).client_number
        == "10002"
    )


def test_counts_past_the_highest_number_of_the_scheme_only(as_anna, make_client):
    make_client("Alt", client_number="10041")
    make_client("Fremdsystem", client_number="A-99999")  # another form: ignored
    make_client("Sehr alt", client_number="999999999999999999999")  # too long for the count: ignored
    assert services.create_client(as_anna, build(ClientCreate, name="Neu")).client_number == "10042"


def test_prefix_and_width(as_anna, make_client):
    set_setting(numbering.SETTING_KEY, {"prefix": "M-", "start": 7, "width": 4})
    make_client("Ohne Präfix", client_number="5000")
    assert services.create_client(as_anna, build(ClientCreate, name="A")).client_number == "M-0007"
    assert services.create_client(as_anna, build(ClientCreate, name="B")).client_number == "M-0008"


def test_a_given_number_is_kept_and_still_checked(as_anna, make_client):
    make_client("Meier GmbH", client_number="10003")
    assert (
        services.create_client(as_anna, build(ClientCreate, name="Hand", client_number="K 17")).client_number
        == "K 17"
    )
    with pytest.raises(Exception) as refused:
        services.create_client(as_anna, build(ClientCreate, name="Meier AG", client_number="10003"))
    assert getattr(refused.value, "code", "") == "invalid_input"
    assert Client.objects.count() == 2


def test_the_copilot_creates_a_client_with_only_a_name(anna_ctx):
    result = dispatch("mandanten_create", {"name": "Autohaus König"}, anna_ctx)
    assert result.ok, result.message
    assert result.output["client"]["client_number"] == "10001"


def test_rest_create_without_number(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = api.post("/api/v1/clients/", {"name": "Familie Hoffmann"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["client"]["client_number"] == "10001"


def test_page_form_proposes_and_assigns_the_number(web, make_client):
    make_client("Alt", client_number="10009")
    page = web.get(reverse("clients:create"))
    assert 'placeholder="10010"' in page.content.decode()
    response = web.post(
        reverse("clients:create"), {"name": "Neu GmbH", "kind": "company", "status": "active"}
    )
    assert response.status_code == 302
    assert Client.objects.get(name="Neu GmbH").client_number == "10010"


def test_an_existing_client_cannot_lose_its_number(make_client):
    client = make_client("Alt", client_number="10009")
    form = ClientForm(
        {"name": "Alt", "client_number": "", "kind": "company", "status": "active"}, people=[], client=client
    )
    assert not form.is_valid() and "client_number" in form.errors


@pytest.mark.parametrize(
    "value",
    [
        "10001",
        {"start": 0},
        {"width": 0},
        {"width": 13},
        {"start": True},
        {"prefix": "<script>"},
        {"prefix": "X" * 11},
        {"colour": "red"},
    ],
)
def test_bad_schemes_are_refused(value):
    with pytest.raises(ValidationError):
        numbering.check_client_scheme(value)


def test_a_broken_stored_scheme_counts_with_the_default(as_anna):
    InstanceSetting.objects.filter(key=numbering.SETTING_KEY).update(value={"width": "five"})
    assert services.create_client(as_anna, build(ClientCreate, name="Neu")).client_number == "10001"


def test_admin_sets_the_scheme_in_the_settings_admin(client, admin_user):
    client.force_login(admin_user)
    setting = InstanceSetting.objects.get(key=numbering.SETTING_KEY)
    url = reverse("admin:core_instancesetting_change", args=[setting.pk])
    refused = client.post(url, {"key": numbering.SETTING_KEY, "value": '{"width": 40}'})
    assert refused.status_code == 200
    setting.refresh_from_db()
    assert setting.value == numbering.DEFAULT_SCHEME
    saved = client.post(
        url, {"key": numbering.SETTING_KEY, "value": '{"prefix": "M", "start": 1, "width": 3}'}
    )
    assert saved.status_code == 302
    setting.refresh_from_db()
    assert setting.value == {"prefix": "M", "start": 1, "width": 3}


@pytest.mark.django_db(transaction=True)
def test_concurrent_creates_take_distinct_numbers(anna):
    """Eight sessions create clients at once: each gets its own number, none fails."""
    principal = Principal.for_user(anna)
    numbers, failures = [], []
    start = threading.Barrier(8)

    def create(i: int) -> None:
        try:
            start.wait(5)
            numbers.append(
                services.create_client(principal, build(ClientCreate, name=f"Parallel {i}")).client_number
            )
        except Exception as exc:  # pragma: no cover - reported below
            failures.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=create, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failures == []
    assert sorted(numbers) == [f"{10001 + i}" for i in range(8)]
