"""Mandanten services: validation, number clash, nothing written on error, search, events."""

import pytest

from apps.clients import services
from apps.clients.contracts import (
    CaseCreate,
    CaseFilter,
    CaseUpdate,
    ClientCreate,
    ClientFilter,
    ClientUpdate,
)
from apps.clients.errors import CaseNotFound, ClientNotFound
from apps.clients.models import Case, Client
from apps.core.errors import InvalidInput
from apps.core.inputs import build
from apps.mutations.models import MutationEvent

pytestmark = pytest.mark.django_db


def test_create_client_publishes_one_all_users_event(as_anna, anna):
    client = services.create_client(
        as_anna,
        build(
            ClientCreate,
            name="Bäckerei Schulz GmbH",
            client_number="10002",
            kind="company",
            responsible_id=anna.pk,
        ),
    )
    assert client.responsible == anna and client.version == 1
    event = MutationEvent.objects.get()
    assert event.audience == "all" and event.topic == "mandanten.client.updated"
    upsert = event.ui_actions[0]
    assert upsert["announce_key"] == "mandanten.client.created"
    assert upsert["list"] == "clients" and upsert["record"]["client_number"] == "10002"


def test_client_number_clash_is_a_field_error_and_writes_nothing(as_anna, make_client):
    make_client("Meier GmbH", client_number="10003")
    with pytest.raises(InvalidInput) as exc:
        services.create_client(as_anna, build(ClientCreate, name="Andere GmbH", client_number="10003"))
    assert exc.value.code == "invalid_input"
    assert "client_number" in exc.value.details["field_errors"]
    assert Client.objects.count() == 1 and not MutationEvent.objects.exists()


def test_update_to_a_taken_number_is_refused(as_anna, make_client):
    make_client("Meier GmbH", client_number="10003")
    other = make_client("Vogel", client_number="10005")
    with pytest.raises(InvalidInput) as exc:
        services.update_client(
            as_anna, other.pk, build(ClientUpdate, **{"client_number": "10003", "city": "München"})
        )
    assert "client_number" in exc.value.details["field_errors"]
    other.refresh_from_db()
    assert other.client_number == "10005" and other.city == "" and other.version == 1


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"name": ""}, "name"),
        ({"email": "kein-mail"}, "email"),
        ({"kind": "verein"}, "kind"),
        ({"responsible_id": 999999}, "responsible_id"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_input_names_the_field(as_anna, values, field):
    args = {"name": "Familie Hoffmann", "client_number": "10001", **values}
    with pytest.raises(InvalidInput) as exc:
        services.create_client(as_anna, build(ClientCreate, **args))
    assert field in exc.value.details["field_errors"]
    assert not Client.objects.exists() and not MutationEvent.objects.exists()


def test_partial_update_keeps_other_fields(as_anna, make_client):
    client = make_client("Meier GmbH", city="Garching", phone="089 1")
    updated = services.update_client(as_anna, client.pk, build(ClientUpdate, **{"phone": "089 2"}))
    assert updated.city == "Garching" and updated.phone == "089 2" and updated.version == 2
    assert MutationEvent.objects.get().ui_actions[0]["announce_key"] == "mandanten.client.updated"


def test_search_by_prefix_and_number(as_anna, make_client):
    make_client("Bäckerei Schulz GmbH", client_number="10002")
    make_client("Autohaus König", client_number="10004")
    assert [c.name for c in services.search_clients(as_anna, "bäck")] == ["Bäckerei Schulz GmbH"]
    assert [c.name for c in services.search_clients(as_anna, "10004")] == ["Autohaus König"]
    _rows, total = services.list_clients(as_anna, build(ClientFilter, status="active"))
    assert total == 2


def test_service_principal_sees_clients(as_robot, make_client):
    client = make_client("Meier GmbH")
    assert services.get_client(as_robot, client.pk) == client


def test_unknown_client(as_anna):
    with pytest.raises(ClientNotFound):
        services.get_client(as_anna, 424242)


def test_cases(as_anna, make_client):
    client = make_client("Meier GmbH")
    case = services.create_case(
        as_anna, build(CaseCreate, client_id=client.pk, reference="2026-0003", subject="Einspruch KSt")
    )
    assert case.client == client and case.status == "open"
    event = MutationEvent.objects.get()
    assert event.audience == "all" and event.topic == "cases.case.updated"
    updated = services.update_case(as_anna, case.pk, build(CaseUpdate, **{"status": "closed"}))
    assert updated.status == "closed" and updated.subject == "Einspruch KSt"
    rows, total = services.list_cases(as_anna, build(CaseFilter, client_id=client.pk))
    assert total == 1 and rows[0].pk == case.pk


def test_case_for_unknown_client_writes_nothing(as_anna):
    with pytest.raises(ClientNotFound) as exc:
        services.create_case(as_anna, build(CaseCreate, client_id=4242, reference="X-1", subject="Test"))
    assert exc.value.code == "client_not_found"
    assert not Case.objects.exists() and not MutationEvent.objects.exists()


def test_case_reference_clash_and_unknown_case(as_anna, make_client, make_case):
    client = make_client()
    make_case(client, reference="2026-0001")
    with pytest.raises(InvalidInput) as exc:
        services.create_case(
            as_anna, build(CaseCreate, client_id=client.pk, reference="2026-0001", subject="Doppelt")
        )
    assert "reference" in exc.value.details["field_errors"]
    with pytest.raises(CaseNotFound):
        services.get_case(as_anna, 999999)
