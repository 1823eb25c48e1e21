"""Each mandanten_* and cases_* tool: success, bad input (nothing written), module gating for
cases; constant query count of mandanten_list."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.clients.models import Case, Client
from apps.mutations.models import MutationEvent
from apps.tools import gating, registry
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    return dispatch(tool_name, args, ctx)


def test_tool_families():
    mandanten = sorted(t.name for t in registry.all_tools() if t.family == "mandanten")
    assert mandanten == [
        "mandanten_create",
        "mandanten_get",
        "mandanten_list",
        "mandanten_search",
        "mandanten_update",
    ]
    cases = [t for t in registry.all_tools() if t.family == "cases"]
    assert sorted(t.name for t in cases) == ["cases_create", "cases_get", "cases_list", "cases_update"]
    assert all(t.module == "cases" and t.is_gated for t in cases)
    assert not any(t.is_gated for t in registry.all_tools() if t.family == "mandanten")


def test_create_get_update_search_list(anna_ctx):
    created = call(anna_ctx, "mandanten_create", name="Autohaus König", client_number="10004", kind="company")
    assert created.ok, created.message
    client = created.output["client"]
    assert created.mutation_event_id is not None
    live = MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions  # shared: the fan-out
    assert any(a.get("announce_key") == "mandanten.client.created" for a in live)
    got = call(anna_ctx, "mandanten_get", client_id=client["id"])
    assert got.output["client"]["name"] == "Autohaus König"
    updated = call(anna_ctx, "mandanten_update", client_id=client["id"], city="München")
    assert updated.ok and updated.output["client"]["city"] == "München"
    assert updated.output["client"]["kind"] == "company" and updated.output["client"]["version"] == 2
    found = call(anna_ctx, "mandanten_search", query="könig")
    assert [c["id"] for c in found.output["clients"]] == [client["id"]]
    listed = call(anna_ctx, "mandanten_list", query="autohaus", status="active")
    assert listed.output["total"] == 1 and listed.output["has_more"] is False


def test_create_with_taken_number_fails_cleanly(anna_ctx, make_client):
    make_client("Meier GmbH", client_number="10003")
    result = call(anna_ctx, "mandanten_create", name="Meier AG", client_number="10003")
    assert not result.ok and result.code == "invalid_input"
    assert Client.objects.count() == 1 and not MutationEvent.objects.exists()


def test_bad_arguments(anna_ctx, make_client):
    assert call(anna_ctx, "mandanten_create", name="X", client_number="1", colour="red").ok is False
    assert call(anna_ctx, "mandanten_list", status="deleted").ok is False
    assert call(anna_ctx, "mandanten_get", client_id=424242).code == "client_not_found"
    assert call(anna_ctx, "mandanten_update", client_id=424242, city="X").code == "client_not_found"
    assert call(anna_ctx, "mandanten_search", query="").ok is False
    assert not Client.objects.exists()


def test_cases_tools(anna_ctx, make_client):
    client = make_client("Schreinerei Vogel")
    created = call(
        anna_ctx, "cases_create", client_id=client.pk, reference="2026-0005", subject="Betriebsprüfung"
    )
    assert created.ok, created.message
    case_id = created.output["case"]["id"]
    assert created.output["case"]["client"]["name"] == "Schreinerei Vogel"
    assert call(anna_ctx, "cases_get", case_id=case_id).output["case"]["reference"] == "2026-0005"
    updated = call(anna_ctx, "cases_update", case_id=case_id, status="closed")
    assert updated.ok and updated.output["case"]["status"] == "closed"
    listed = call(anna_ctx, "cases_list", client_id=client.pk)
    assert listed.output["total"] == 1


def test_case_for_unknown_client(anna_ctx):
    result = call(anna_ctx, "cases_create", client_id=4242, reference="X-1", subject="Test")
    assert not result.ok and result.code == "client_not_found"
    assert call(anna_ctx, "cases_get", case_id=4242).code == "case_not_found"
    assert not Case.objects.exists()


@pytest.fixture
def cases_uninstalled(db):
    gating.set_installed("cases", False)
    yield
    gating.invalidate()


def test_cases_module_not_installed(anna_ctx, make_client, cases_uninstalled):
    client = make_client()
    for name, args in [
        ("cases_list", {}),
        ("cases_get", {"case_id": 1}),
        ("cases_create", {"client_id": client.pk, "reference": "A-1", "subject": "S"}),
        ("cases_update", {"case_id": 1, "status": "closed"}),
    ]:
        result = call(anna_ctx, name, **args)
        assert not result.ok and result.code == "module_not_installed:cases", name
    assert not Case.objects.exists()
    assert call(anna_ctx, "mandanten_list").ok  # core family stays available


def test_mandanten_list_query_count_is_constant(anna_ctx, make_client, anna):
    make_client("Erster", responsible=anna)
    with CaptureQueriesContext(connection) as few:
        assert call(anna_ctx, "mandanten_list").output["total"] == 1
    for i in range(15):
        make_client(f"Mandant {i}", responsible=anna)
    with CaptureQueriesContext(connection) as many:
        assert call(anna_ctx, "mandanten_list").output["total"] == 16
    assert len(many) == len(few)
