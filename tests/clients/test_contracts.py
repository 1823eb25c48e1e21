"""The Mandanten contracts: records have exactly the declared shape (tools send them as they are),
the choices match the models', the REST bodies keep their null rule, and the client page's
sections come from the apps that link rows to clients, never from imports of them."""

import ast
import typing
from pathlib import Path

import pytest

from apps.accounts.contracts import person_ref
from apps.clients import contracts as c
from apps.clients import page
from apps.clients.models import Case, Client
from apps.clients.records import case_url, client_ref, detail_url
from apps.core.records import attrs, stamps
from apps.core.surfaces.api import RequestInvalid, parse

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


# The hand-written builders the output models replaced (records.py until issue #24), kept as the
# reference: the wire records stay byte for byte what tools, REST clients and live pages received.
def old_client_record(client: Client) -> dict:
    return {
        "id": client.pk,
        **attrs(client, "kind", "name", "client_number", "tax_number", "email", "phone"),
        **attrs(client, "street", "postal_code", "city", "country"),
        "responsible": person_ref(client.responsible),
        **attrs(client, "status", "notes"),
        **stamps(client),
        "url": detail_url(client.pk),
    }


def old_case_record(case: Case) -> dict:
    return {
        "id": case.pk,
        **attrs(case, "reference", "subject"),
        "client": client_ref(case.client),
        "status": case.status,
        "responsible": person_ref(case.responsible),
        **stamps(case),
        "url": case_url(case.pk),
    }


@pytest.mark.parametrize("responsible", [True, False])
def test_records_build_themselves_byte_for_byte(make_client, make_case, anna, responsible):
    import json

    who = anna if responsible else None
    client = make_client("Meier GmbH", responsible=who, tax_number="143/140/70033", notes="Notiz")
    case = make_case(client, responsible=who, status="closed")
    for new, old in (
        (c.ClientOut.record(client), old_client_record(client)),
        (c.CaseOut.record(case), old_case_record(case)),
    ):
        assert json.dumps(new) == json.dumps(old)  # same keys, same order, same values
    assert c.CaseOut.record(case)["client"]["url"] == c.ClientOut.record(client)["url"]


def test_literal_choices_are_the_models_choices():
    assert list(typing.get_args(c.Kind)) == Client.Kind.values
    assert list(typing.get_args(c.ClientStatus)) == Client.Status.values
    assert list(typing.get_args(c.CaseStatus)) == Case.Status.values


def test_rest_bodies_empty_only_the_responsible_with_null():
    assert parse(c.ClientUpdateBody, {"responsible_id": None}).changes() == {"responsible_id": None}
    for model, body in [
        (c.ClientUpdateBody, {"name": None}),
        (c.ClientUpdateBody, {"expected_version": None}),
        (c.CaseUpdateBody, {"client_id": None}),
    ]:
        with pytest.raises(RequestInvalid) as exc:
            parse(model, body)
        assert list(exc.value.errors) == list(body)
    # the query string's `q` and the tools' `query` name the same filter
    assert parse(c.ClientFilterQuery, {"q": "meier"}).query == "meier"


def test_the_client_page_imports_no_linking_app():
    offenders = []
    for path in sorted((ROOT / "apps" / "clients").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno} {name}"
                for name in names
                if name.split(".")[:2] in (["apps", "tasks"], ["apps", "calendar"], ["apps", "documents"])
            ]
    assert offenders == []


def test_sections_come_from_the_extension_point_in_page_order(make_client, as_anna):
    found = page.sections(as_anna, make_client("Meier GmbH"))
    assert [s.key for s in found] == ["deadlines", "tasks", "events", "cases", "documents"]
    assert page.live_topics(found) == ["aufgaben.task", "calendar.event", "cases.case", "documents.document"]


def test_the_page_follows_the_sections_live_topics(client, anna, make_client):
    client.force_login(anna)
    meier = make_client("Meier GmbH")
    body = client.get(f"/mandanten/{meier.pk}/").content.decode()
    assert 'data-linked-topics="aufgaben.task calendar.event cases.case documents.document"' in body
    assert 'id="client-task-title"' in body  # the tasks section's action, outside the refreshed region
    assert body.index('id="client-task-title"') < body.index('id="client-linked"')
