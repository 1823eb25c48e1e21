"""Stale writes to a client or a case are refused with `version_conflict` (tools, REST API and the
client page), carrying the current record; nothing is written."""

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.clients import services
from apps.clients.contracts import ClientUpdate
from apps.clients.models import Case, Client
from apps.core.inputs import build
from apps.mutations.models import MutationEvent
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    return dispatch(tool_name, args, ctx)


def test_mandanten_update_with_the_read_version_succeeds_and_a_stale_one_is_refused(anna_ctx, make_client):
    client = make_client("Meier GmbH", city="Garching")
    ok = call(anna_ctx, "mandanten_update", client_id=client.pk, city="München", expected_version=1)
    assert ok.ok and ok.output["client"]["version"] == 2
    events = MutationEvent.objects.count()
    stale = call(anna_ctx, "mandanten_update", client_id=client.pk, city="Freising", expected_version=1)
    assert not stale.ok and stale.code == "version_conflict"
    assert stale.output["client"]["city"] == "München" and stale.output["client"]["version"] == 2
    client.refresh_from_db()
    assert client.city == "München" and client.version == 2 and MutationEvent.objects.count() == events
    assert call(anna_ctx, "mandanten_update", client_id=client.pk, city="X").ok  # no version: last write wins


def test_cases_update_refuses_a_stale_version(anna_ctx, make_client, make_case):
    case = make_case(make_client("Schreinerei Vogel"), subject="Betriebsprüfung")
    assert call(anna_ctx, "cases_update", case_id=case.pk, status="closed", expected_version=1).ok
    stale = call(anna_ctx, "cases_update", case_id=case.pk, subject="Neu", expected_version=1)
    assert stale.code == "version_conflict" and stale.output["case"]["status"] == "closed"
    case.refresh_from_db()
    assert case.subject == "Betriebsprüfung" and case.version == 2


def test_bad_expected_version_is_invalid_arguments(anna_ctx, make_client):
    client = make_client()
    result = call(anna_ctx, "mandanten_update", client_id=client.pk, city="X", expected_version=0)
    assert not result.ok and result.code == "invalid_arguments"
    assert Client.objects.get().version == 1


@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_api_patch_answers_409_on_a_stale_version(api, make_client, make_case):
    client = make_client("Autohaus König")
    url = f"/api/v1/clients/{client.pk}"
    assert api.patch(url, {"city": "München", "expected_version": 1}, format="json").status_code == 200
    stale = api.patch(url, {"city": "Dachau", "expected_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    assert stale.json()["details"]["client"]["city"] == "München"
    case = make_case(client)
    url = f"/api/v1/cases/{case.pk}"
    assert api.patch(url, {"status": "closed", "expected_version": 1}, format="json").status_code == 200
    stale = api.patch(url, {"subject": "Neu", "expected_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    assert Case.objects.get().subject != "Neu"


def test_client_page_refuses_a_stale_save_then_keeps_both_changes(client, anna, as_anna, make_client):
    client.force_login(anna)
    mandant = make_client("Meier GmbH", city="Garching", phone="089 1")
    url = reverse("clients:detail", args=[mandant.pk])
    form = client.get(url).context["form"]
    data = {name: form.initial.get(name, "") for name in form.fields}
    assert data["version"] == 1
    data["phone"] = "089 2"
    services.update_client(
        as_anna, mandant.pk, build(ClientUpdate, **{"city": "München"})
    )  # someone else, meanwhile

    refused = client.post(url, data)
    assert refused.status_code == 200
    mandant.refresh_from_db()
    assert mandant.phone == "089 1" and mandant.city == "München"  # nothing written
    form = refused.context["form"]
    assert form.non_field_errors()
    # the user's own edit is kept, the other change is shown, baseline and version moved on
    assert form.data["phone"] == "089 2" and form.data["city"] == "München"
    assert form.data["base_city"] == "München" and form.data["version"] == "2"

    again = client.post(url, dict(form.data.items()))
    assert again.status_code == 302
    mandant.refresh_from_db()
    assert mandant.phone == "089 2" and mandant.city == "München" and mandant.version == 3
